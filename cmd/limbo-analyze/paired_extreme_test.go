package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pairedCSV writes a ledger of n pair keys, each with a vanilla and an
// aware episode whose x is base(i) and other(i).
func pairedCSV(t *testing.T, n int, base, other func(i int) float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("episode_id,pair_key,condition,x\n")
	for i := range n {
		fmt.Fprintf(&b, "v%d,k%d,vanilla,%s\n", i, i, strconv.FormatFloat(base(i), 'g', -1, 64))
		fmt.Fprintf(&b, "a%d,k%d,aware,%s\n", i, i, strconv.FormatFloat(other(i), 'g', -1, 64))
	}
	p := filepath.Join(t.TempDir(), "x.csv")
	writeFile(t, p, b.String())
	return p
}

// Issue 37, case 12: the paired t test's warnings say what happened. One
// difference out of 11 that overflows (1.7e308 − (−1.7e308)) was reported
// as "every difference is NaN", and ten distinct subnormal differences as
// "every difference is 5.5e-320"; the differences are now taken in scaled
// units, so both tests are defined, and "every difference is" is said only
// when it is true.
func TestPairedExtremeDifferences(t *testing.T) {
	for _, c := range []struct {
		name        string
		base, other func(i int) float64
		n           int
		wantWarn    string // "" = no warning of the test
	}{
		{"one overflowing difference", func(i int) float64 { return []float64{1.7e308, 3}[min(i, 1)] + float64(i) }, func(i int) float64 { return []float64{-1.7e308, 1}[min(i, 1)] }, 11, ""},
		{"subnormal differences", func(i int) float64 { return float64(i+1) * 5e-324 * 1000 }, func(int) float64 { return 0 }, 10, ""},
		{"every difference the same", func(i int) float64 { return float64(i) + 2 }, func(i int) float64 { return float64(i) }, 5, "every difference is 2; the t test is undefined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := pairedCSV(t, c.n, c.base, c.other)
			code, stdout, stderr := runCmd(t, "paired", "--in", in, "--outcome", "x", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "t", "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if c.wantWarn == "" {
				if strings.Contains(stderr, "every difference") || strings.Contains(stdout, `"p": null`) || strings.Contains(stdout, `"t": null`) {
					t.Errorf("a defined test reported undefined:\nstdout %s\nstderr %s", stdout, stderr)
				}
				return
			}
			if !strings.Contains(stderr, c.wantWarn) {
				t.Errorf("stderr %q, want %q", stderr, c.wantWarn)
			}
		})
	}
}
