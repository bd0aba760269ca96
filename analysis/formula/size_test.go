package formula

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Issue 37, case 8: a design too large to hold is an error before it is
// allocated. 96 interaction terms of 70 × 70 levels, each under the
// per-term limit, asked for 2.8 GB and more and died out of memory.
func TestBuildRefusesHugeDesign(t *testing.T) {
	const nCols, nLevels, rows = 15, 70, 140
	var rs []mapRow
	for i := range rows {
		r := mapRow{"y": boolean(i%2 == 0)}
		for c := range nCols {
			r[fmt.Sprintf("c%d", c)] = str(fmt.Sprintf("l%d", (i*(c+1))%nLevels))
		}
		rs = append(rs, r)
	}
	var terms []string
	for a := 0; a < nCols && len(terms) < 96; a++ {
		for b := a + 1; b < nCols && len(terms) < 96; b++ {
			terms = append(terms, fmt.Sprintf("c%d:c%d", a, b))
		}
	}
	f, err := Parse("y ~ " + strings.Join(terms, " + "))
	if err != nil {
		t.Fatal(err)
	}
	fr := buildFrame(t, f, rs, false)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Build(f, fr, Options{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "the design would have") {
		t.Fatalf("Build: %v; want the design refused", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("Build allocated %d MB before refusing", grown>>20)
	}
	// Twenty of those interactions over 300 rows enumerate 97,000
	// combinations, under the bound, but keep about 6,000 columns.
	var rs2 []mapRow
	for i := range 300 {
		r := mapRow{"y": boolean(i%2 == 0)}
		for c := range nCols {
			r[fmt.Sprintf("c%d", c)] = str(fmt.Sprintf("l%d", (i*(c+1)+i/nLevels)%nLevels))
		}
		rs2 = append(rs2, r)
	}
	h, err := Parse("y ~ " + strings.Join(terms[:20], " + "))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(h, buildFrame(t, h, rs2, false), Options{}); err == nil || !strings.Contains(err.Error(), "columns (more than 5000)") {
		t.Errorf("6,000 columns: %v; want refused", err)
	}
	// A design at the column limit is built.
	g, err := Parse("y ~ c0:c1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(g, buildFrame(t, g, rs, false), Options{}); err != nil {
		t.Errorf("one interaction of 70 × 70 levels: %v", err)
	}
}
