package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// TestPairedUnderflowCLI is the regression test of `paired` on a pairing
// whose exact McNemar p-value underflows float64, in every format: people
// read the bound "< 1e-300" (LaTeX "$<$ 1e-300"), never a p of 0; CSV and
// JSON keep the bound 1e-300 as p and p_adj and carry log10_p and
// log10_p_adj (−1099·log₁₀ 2 and, Holm over two, −1098·log₁₀ 2).
func TestPairedUnderflowCLI(t *testing.T) {
	// 1100 pair keys where guard duplicates and vanilla does not (b = 0,
	// c = 1100: exact p = 2^−1099 ≈ 1.4e-331, below float64) and 7 where
	// aware does (p = 2^−6).
	data := ledgertest.UnderflowCSV(t, filepath.Join(cliData, "episodes.csv"), 1100, 7)
	out := func(format string) string {
		var stdout, stderr bytes.Buffer
		args := []string{"paired", "--in", data, "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--format", format}
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr.String())
		}
		return stdout.String()
	}
	wantLog, wantAdjLog := -1099*math.Log10(2), -1098*math.Log10(2)
	for _, tc := range []struct{ format, bound, row string }{
		{"text", "< 1e-300", "guard"},
		{"md", "< 1e-300", "| guard"},
		{"latex", "$<$ 1e-300", "guard &"},
	} {
		s := out(tc.format)
		var line string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, tc.row) && strings.Contains(l, "1100") {
				line = l
			}
		}
		if strings.Count(line, tc.bound) != 2 {
			t.Errorf("%s: the guard row does not print p and p_adj as %q:\n%s", tc.format, tc.bound, s)
		}
		// The two p columns are the bounds; nothing else on the row is a
		// p-value in scientific notation (a denormal such as 1.4e-331).
		if rest := strings.ReplaceAll(line, tc.bound, ""); strings.Contains(rest, "e-") {
			t.Errorf("%s: the guard row prints another small p:\n%s", tc.format, line)
		}
		// aware keeps its ordinary p (2^−6) and Holm p (the larger, kept).
		if !strings.Contains(s, "0.016") {
			t.Errorf("%s: aware's p 0.016 missing:\n%s", tc.format, s)
		}
	}

	var js struct {
		Comparisons []struct {
			Other     string   `json:"other"`
			B         int      `json:"b"`
			C         int      `json:"c"`
			P         *float64 `json:"p"`
			PAdj      *float64 `json:"p_adj"`
			Log10P    *float64 `json:"log10_p"`
			Log10PAdj *float64 `json:"log10_p_adj"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out("json")), &js); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range js.Comparisons {
		if c.Other != "guard" {
			continue
		}
		found = true
		if c.B != 0 || c.C != 1100 {
			t.Errorf("json: guard b, c = %d, %d; want 0, 1100", c.B, c.C)
		}
		if c.P == nil || *c.P != 1e-300 || c.PAdj == nil || *c.PAdj != 1e-300 {
			t.Errorf("json: guard p %v p_adj %v, want the bound 1e-300", c.P, c.PAdj)
		}
		if c.Log10P == nil || math.Abs(*c.Log10P-wantLog) > 1e-9 || c.Log10PAdj == nil || math.Abs(*c.Log10PAdj-wantAdjLog) > 1e-9 {
			t.Errorf("json: guard log10_p %v log10_p_adj %v, want %.10g, %.10g", c.Log10P, c.Log10PAdj, wantLog, wantAdjLog)
		}
	}
	if !found {
		t.Fatal("json: no guard comparison")
	}

	recs, err := csv.NewReader(strings.NewReader(out("csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "base,other,pairs,b,c,gain_pp,p,p_adj,log10_p,log10_p_adj" {
		t.Fatalf("csv header %s", got)
	}
	found = false
	for _, r := range recs[1:] {
		if r[1] != "guard" {
			continue
		}
		found = true
		if r[3] != "0" || r[4] != "1100" || r[6] != "1e-300" || r[7] != "1e-300" {
			t.Errorf("csv guard row %v: want b 0, c 1100, p and p_adj the bound 1e-300", r)
		}
		lp, err1 := strconv.ParseFloat(r[8], 64)
		lpa, err2 := strconv.ParseFloat(r[9], 64)
		if err1 != nil || err2 != nil || math.Abs(lp-wantLog) > 1e-9 || math.Abs(lpa-wantAdjLog) > 1e-9 {
			t.Errorf("csv guard log10_p %q log10_p_adj %q, want %.10g, %.10g", r[8], r[9], wantLog, wantAdjLog)
		}
	}
	if !found {
		t.Fatal("csv: no guard row")
	}
}
