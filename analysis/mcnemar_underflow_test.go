package analysis

import (
	"math"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/stats"
)

// TestPairedUnderflow is the regression test of an exact McNemar p-value
// that underflows float64: b = 0, c = 1100 gives p = 2^−1099 ≈ 1.4e-331,
// which McNemarExact returns as 0. Paired must report the bound 1e-300
// (never 0), mark it, and carry log₁₀ p; Holm's adjusted p of that
// comparison is a bound as well, while the other comparison keeps its
// ordinary p-values.
func TestPairedUnderflow(t *testing.T) {
	if stats.McNemarExact(0, 1100) != 0 {
		t.Fatal("fixture: McNemarExact(0, 1100) no longer underflows; pick a larger c")
	}
	path := ledgertest.UnderflowCSV(t, cliLedger, 1100, 7) // p = 2·2^−1100
	log2 := math.Log10(2)
	for _, tc := range []struct {
		test               stats.PairedTest
		adjust             stats.Adjustment
		wantLog, wantAdjLg float64 // log₁₀ p and log₁₀ p_adj of vanilla vs guard
		wantAwareAdj       float64
	}{
		// p = 2·2^−1100; Holm and Bonferroni double it (m = 2); BH
		// multiplies the smallest by m/1 = 2 as well.
		{"exact", "holm", -1099 * log2, -1098 * log2, 2 * math.Pow(2, -7)},
		{"exact", "bonferroni", -1099 * log2, -1098 * log2, 4 * math.Pow(2, -7)},
		{"exact", "bh", -1099 * log2, -1098 * log2, 2 * math.Pow(2, -7)},
		{"exact", "none", -1099 * log2, -1099 * log2, 2 * math.Pow(2, -7)},
		// BY: BH times c(2) = 1 + 1/2.
		{"exact", "by", -1099 * log2, -1099*log2 + math.Log10(3), 3 * math.Pow(2, -7)},
		// mid-p = 2·(P(X ≤ 0) − ½P(X = 0)) = 2^−1100.
		{"midp", "holm", -1100 * log2, -1099 * log2, math.NaN()},
	} {
		res, err := Paired(Query{Source: &table.Files{Paths: []string{path}}}, PairedSpec{Outcome: "duplicated", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key"}, Test: tc.test, Adjust: tc.adjust})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Comparisons) != 2 {
			t.Fatalf("%s/%s: %d comparisons, want aware and guard", tc.test, tc.adjust, len(res.Comparisons))
		}
		var g, a PairedComparison
		for _, c := range res.Comparisons {
			switch c.Other {
			case "guard":
				g = c
			case "aware":
				a = c
			}
		}
		if g.B != 0 || g.C != 1100 || g.Pairs != 1100 {
			t.Fatalf("%s/%s: guard b, c, pairs = %d, %d, %d; want 0, 1100, 1100", tc.test, tc.adjust, g.B, g.C, g.Pairs)
		}
		if g.P != stats.PFloor || !g.PBelow || g.PAdj != stats.PFloor || !g.PAdjBelow {
			t.Errorf("%s/%s: guard p %g (below %v), p_adj %g (below %v); want the bound 1e-300, marked", tc.test, tc.adjust, g.P, g.PBelow, g.PAdj, g.PAdjBelow)
		}
		if math.Abs(g.Log10P-tc.wantLog) > 1e-9 || math.Abs(g.Log10PAdj-tc.wantAdjLg) > 1e-9 {
			t.Errorf("%s/%s: guard log10 p %.12g, p_adj %.12g; want %.12g, %.12g", tc.test, tc.adjust, g.Log10P, g.Log10PAdj, tc.wantLog, tc.wantAdjLg)
		}
		// aware: b = 0, c = 7; exact p = 2·2^−7, never a bound.
		if a.PBelow || a.PAdjBelow || a.P <= 0 || math.Abs(math.Log10(a.P)-a.Log10P) > 1e-12 {
			t.Errorf("%s/%s: aware p %g (below %v), log10 %g", tc.test, tc.adjust, a.P, a.PBelow, a.Log10P)
		}
		if !math.IsNaN(tc.wantAwareAdj) && (math.Abs(a.PAdj-tc.wantAwareAdj) > 1e-15 || math.Abs(a.Log10PAdj-math.Log10(tc.wantAwareAdj)) > 1e-12) {
			t.Errorf("%s/%s: aware p_adj %g (log10 %g), want %g", tc.test, tc.adjust, a.PAdj, a.Log10PAdj, tc.wantAwareAdj)
		}
	}
}

// TestChi2SF1Log10 checks the asymptotic log tail of χ²₁ against the
// p-value itself where both are representable (p down to ~1e-305), and
// that it stays finite far beyond.
func TestChi2SF1Log10(t *testing.T) {
	for _, bc := range [][2]int{{0, 1100}, {0, 1300}, {10, 1400}, {3, 1390}} {
		stat, p := stats.McNemarChi2(bc[0], bc[1], false)
		if p == 0 {
			t.Fatalf("b, c = %v: p underflowed; pick a smaller table", bc)
		}
		if got, want := chi2SF1Log10(stat), math.Log10(p); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("b, c = %v: chi2SF1Log10(%g) = %.12g, log10 p = %.12g", bc, stat, got, want)
		}
	}
	if lp := mcnemarLog10P("chi2cc", 0, 100000); math.IsInf(lp, 0) || math.IsNaN(lp) || lp > -21000 {
		t.Errorf("chi2cc b = 0, c = 1e5: log10 p = %g, want finite, about -21700", lp)
	}
}

// TestReportableP: a reported p-value keeps an ordinary p as it is and
// turns an underflowed one (0 as a float64) into the marked bound.
func TestReportableP(t *testing.T) {
	lp := stats.McNemarExactLog10(0, 1100)
	for _, tc := range []struct {
		p, lp float64
		want  float64
		below bool
	}{
		{stats.McNemarExact(0, 1100), lp, stats.PFloor, true},
		{stats.McNemarExact(26, 5), stats.McNemarExactLog10(26, 5), stats.McNemarExact(26, 5), false},
		{math.NaN(), math.NaN(), math.NaN(), false},
	} {
		v, below := reportableP(tc.p, tc.lp)
		same := v == tc.want || math.IsNaN(v) && math.IsNaN(tc.want)
		if !same || below != tc.below {
			t.Errorf("reportableP(%g, %g) = %g below %v; want %g %v", tc.p, tc.lp, v, below, tc.want, tc.below)
		}
	}
}

// TestMcNemarLog10Reference checks log₁₀ p of every McNemar test Paired
// offers, where p underflows float64, against R (pbinom, dbinom and pchisq
// with log.p = TRUE; testdata/analysis/mcnemar_log10.R prints the table).
func TestMcNemarLog10Reference(t *testing.T) {
	for _, r := range []struct {
		b, c                     int
		exact, midp, chi2, chicc float64
	}{
		{0, 1100, -330.831965234715, -331.132995230379, -240.481115247744, -240.046623895262},
		{0, 1500, -451.243963500308, -451.544993495972, -327.407256044166, -326.972817086026},
		{10, 1500, -429.034325709162, -429.332473869351, -320.94601926471, -320.517329658606},
		{3, 5000, -1495.43249796619, -1495.73326756748, -1085.73068312056, -1085.296865998},
	} {
		for _, tc := range []struct {
			test stats.PairedTest
			want float64
		}{{"exact", r.exact}, {"midp", r.midp}, {"chi2", r.chi2}, {"chi2cc", r.chicc}} {
			if got := mcnemarLog10P(tc.test, r.b, r.c); math.Abs(got-tc.want) > 1e-10*math.Abs(tc.want) {
				t.Errorf("%s b=%d c=%d: log10 p = %.15g, R %.15g", tc.test, r.b, r.c, got, tc.want)
			}
		}
	}
}
