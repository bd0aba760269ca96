package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/stats"
)

func nanTable() *paper.Table {
	n := math.NaN()
	return &paper.Table{
		Number: 99, Title: "t", Caption: "50% of a_b & c", LabelHeader: []string{"Row"},
		Columns: []paper.Column{{Key: "r", Label: "rate", Group: "g", ShowCI: true}, {Key: "p", Label: "p"}},
		Rows: []paper.Row{
			{Key: "a", Labels: []string{"a_1"}, Cells: []paper.Cell{
				{Kind: paper.Percent, Value: 12.5, Lo: 5, Hi: 25.4, N: 8, NEff: 7.5},
				{Kind: paper.PValue, Value: 1.5e-9, Lo: n, Hi: n, NEff: n}}},
			{Key: "b", Labels: []string{"b"}, Cells: []paper.Cell{
				{Kind: paper.Percent, Value: n, Lo: n, Hi: n, NEff: n},
				{Kind: paper.PValue, Value: n, Lo: n, Hi: n, NEff: n}}},
		},
		Warnings: []string{"b: no episodes"},
	}
}

// Undefined numbers: "–" for people, empty in CSV, null in JSON; full
// precision for machines.
func TestUndefinedAndPrecision(t *testing.T) {
	tb := nanTable()
	var txt, c, j bytes.Buffer
	Text(&txt, tb)
	CSV(&c, tb, true)
	JSON(&j, tb)
	if !strings.Contains(txt.String(), "12 [5,25]") || !strings.Contains(txt.String(), "1.5e-9") || !strings.Contains(txt.String(), "–") || !strings.Contains(txt.String(), "[1] b: no episodes") {
		t.Errorf("text:\n%s", txt.String())
	}
	if !strings.Contains(c.String(), "table99,a,a_1,r,g: rate,percent,12.5,5,25.4,8,7.5,") || !strings.Contains(c.String(), "table99,b,b,r,g: rate,percent,,,,,,") {
		t.Errorf("csv:\n%s", c.String())
	}
	var v struct {
		Rows []struct {
			Cells []struct {
				Value *float64 `json:"value"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(j.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Rows[1].Cells[0].Value != nil || *v.Rows[0].Cells[1].Value != 1.5e-9 {
		t.Errorf("json:\n%s", j.String())
	}
}

func TestLaTeXEscapes(t *testing.T) {
	var b bytes.Buffer
	LaTeX(&b, nanTable())
	s := b.String()
	for _, want := range []string{`a\_1`, `50\% of a\_b \& c`, `\multicolumn{1}{c}{g}`, `\toprule`, `\bottomrule`, "--"} {
		if !strings.Contains(s, want) {
			t.Errorf("latex lacks %q:\n%s", want, s)
		}
	}
}

func TestPValue(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{1, "1"}, {0.25, "0.25"}, {0.035, "0.035"}, {0.00011, "1.1e-4"}, {9.1e-59, "9.1e-59"}, {math.NaN(), "–"}} {
		if got := PValue(c.p); got != c.want {
			t.Errorf("PValue(%g) = %q, want %q", c.p, got, c.want)
		}
	}
}

// WriteFileAtomic leaves no temporary file and replaces the target.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.md")
	for _, s := range []string{"one", "two"} {
		if err := WriteFileAtomic(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if b, _ := os.ReadFile(p); string(b) != "two" || len(ents) != 1 {
		t.Errorf("content %q, %d entries", b, len(ents))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("no error for a missing directory")
	}
}

// Differences carry a sign, and one that rounds to zero reads "+0.0",
// never "-0.0".
func TestDeltaSign(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		d    int
		want string
	}{
		{-0.04, 1, "+0.0"},
		{0.04, 1, "+0.0"},
		{-0.06, 1, "-0.1"},
		{12.74, 1, "+12.7"},
		{-3, 0, "-3"},
		{0, 0, "+0"},
	} {
		for _, k := range []paper.Kind{paper.PP, paper.Delta} {
			if got := human(paper.Cell{Kind: k, Value: tc.v, Digits: tc.d}, false); got != tc.want {
				t.Errorf("kind %v, %v with %d digits: got %q, want %q", k, tc.v, tc.d, got, tc.want)
			}
		}
	}
}

// FormatLog10P prints 10^lp exactly at any magnitude, as %e does where
// float64 still holds the p-value.
func TestFormatLog10P(t *testing.T) {
	for _, tc := range []struct {
		lp   float64
		sig  int
		want string
	}{
		{0, 3, "1"},
		{math.Log10(0.0312), 3, "0.0312"},
		{math.Log10(8.699e-06), 4, "8.699e-06"},
		{math.Log10(8.699e-06), 2, "8.7e-06"},
		{-299.5, 2, "3.2e-300"},
		{-323.30621534311581, 3, "4.94e-324"},
		{-1495.4324979661915, 2, "3.7e-1496"},
		{-10.00000001, 2, "1.0e-10"},
		{-9.999999999, 2, "1.0e-10"},
		{math.NaN(), 2, "NaN"},
	} {
		if s := FormatLog10P(tc.lp, tc.sig); s != tc.want {
			t.Errorf("FormatLog10P(%v, %d) = %q, want %q", tc.lp, tc.sig, s, tc.want)
		}
	}
	for _, p := range []float64{3.3e-5, 1.234e-17, 9.996e-200} {
		if got, want := FormatLog10P(math.Log10(p), 3), fmt.Sprintf("%.2e", p); got != want {
			t.Errorf("FormatLog10P(log10 %g) = %q, %%e gives %q", p, got, want)
		}
	}
}

// The exact McNemar p-value of 0 against 2,000 discordant pairs underflows
// float64; its log₁₀ prints.
func ExampleFormatLog10P() {
	lp := stats.McNemarExactLog10(0, 2000)
	fmt.Println(FormatLog10P(lp, 2))
	// Output: 1.7e-602
}
