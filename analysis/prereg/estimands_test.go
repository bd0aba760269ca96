package prereg

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// TestEstimands checks every estimand kind against testdata/estimands.py
// (hand computations with the Python standard library) on the committed
// CLI ledger, and the verdicts its rules give.
func TestEstimands(t *testing.T) {
	r := evaluateFile(t, "estimands.yaml")
	nan := nan
	tests := []struct {
		id               string
		value, lo, hi, p float64
		n                int64
		verdict          Verdict
		tol              float64
	}{
		// Wilson 95% on n = 143 (unweighted, no cluster: n_eff = n).
		{"R", 30.76923076923077, 23.79035448366295, 38.75428349411712, nan, 143, Supported, 1e-9},
		// Wald 95% of p_native − p_keys-everywhere.
		{"D", 16.68472372697725, 7.200033367358626, 26.16941408659587, nan, 285, Supported, 1e-9},
		// Exact McNemar, Holm over the family {vanilla, aware}.
		{"M-vanilla", 12.23021582733813, nan, nan, 0.04818581539689859, 139, Supported, 1e-9},
		{"M-aware", 6.521739130434782, nan, nan, 0.2624375357110438, 138, Inconclusive, 1e-9},
		// Logit OR of one binary factor = the 2×2 table's cross ratio, Wald CI.
		{"O", 2.7111111111111112, 1.5008484082564326, 4.897312357701014, 0.0009472009872020237, 285, Supported, 1e-6},
		// One-sided: p/2 on the predicted side, 1 − p/2 on the other.
		{"O-one-sided", 2.7111111111111112, 1.5008484082564326, 4.897312357701014, 0.0009472009872020237 / 2, 285, Supported, 1e-6},
		{"O-wrong-side", 2.7111111111111112, 1.5008484082564326, 4.897312357701014, 1 - 0.0009472009872020237/2, 285, NotSupported, 1e-6},
		// Shapley share of McFadden's R² (two factors, Newton–Raphson fits).
		{"S", 42.21286999232927, nan, nan, nan, 285, NotSupported, 1e-6},
		// Wald TOST, 90% interval, margin ±5 pp.
		{"T", -6.382978723404264, -15.350516574124084, 2.584559127315554, nan, 282, Inconclusive, 1e-9},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			v := verdict(t, r, tt.id)
			s := v.Parts[0].Estimate
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"value", s.Value, tt.value}, {"lo", s.Lo, tt.lo}, {"hi", s.Hi, tt.hi}} {
				if !within(c.got, c.want, tt.tol) {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			if !isNaN(tt.p) && !within(s.P, tt.p, tt.tol) {
				t.Errorf("p = %v, want %v", s.P, tt.p)
			}
			if s.N != tt.n {
				t.Errorf("n = %d, want %d", s.N, tt.n)
			}
			if v.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q (%s)", v.Verdict, tt.verdict, v.Reason)
			}
		})
	}
}

// cliCSV is the committed CLI ledger.
var cliCSV = filepath.Join("..", "..", "testdata", "cli", "episodes.csv")

// evaluate parses src as the preregistration file name and evaluates it
// on eps; any error is fatal.
func evaluate(t *testing.T, name string, src []byte, eps []*ledger.Episode) *Result {
	t.Helper()
	f, err := Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.EvaluateEpisodes(eps)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// evaluateFile evaluates testdata/name on the committed CLI ledger; any
// error is fatal.
func evaluateFile(t *testing.T, name string) *Result {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return evaluate(t, name, src, ledgertest.ReadEpisodes(t, cliCSV))
}

// verdict returns r's verdict on the hypothesis id; a missing one is
// fatal.
func verdict(t *testing.T, r *Result, id string) *HypothesisResult {
	t.Helper()
	var v *HypothesisResult
	for _, x := range r.Verdicts {
		if x.ID == id {
			v = x
		}
	}
	if v == nil {
		t.Fatalf("no verdict %s", id)
	}
	return v
}

func isNaN(x float64) bool { return x != x }

// within compares relative-or-absolute; NaN matches NaN.
func within(got, want, tol float64) bool {
	if isNaN(want) || isNaN(got) {
		return isNaN(want) && isNaN(got)
	}
	d := got - want
	if d < 0 {
		d = -d
	}
	m := want
	if m < 0 {
		m = -m
	}
	return d <= tol*max(1, m)
}

// A family's adjust names any of the engine's adjustments but none: the
// family's p-values are stats.Adjust's over its tests' unadjusted ones,
// which each test keeps as p_unadjusted.
func TestFamilyAdjustments(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "estimands.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	for _, a := range Adjusts {
		t.Run(string(a), func(t *testing.T) {
			r := evaluate(t, "estimands.yaml", bytes.Replace(src, []byte("adjust: holm"), []byte("adjust: "+a), 1), eps)
			var raw, got []float64
			for _, id := range []string{"M-vanilla", "M-aware"} {
				p := verdict(t, r, id).Parts[0]
				got = append(got, p.Estimate.P)
				for _, x := range p.Extra {
					if x.Name == "p_unadjusted" {
						raw = append(raw, x.Value)
					}
				}
			}
			want := stats.Adjust(stats.Adjustment(a), raw)
			for i := range want {
				if len(raw) != 2 || !within(got[i], want[i], 1e-12) {
					t.Fatalf("family p-values %v from %v, want %v", got, raw, want)
				}
			}
		})
	}
}
