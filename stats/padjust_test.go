package stats

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Holm, Bonferroni, Benjamini–Hochberg and Benjamini–Yekutieli match R's
// p.adjust (stats/testdata/padjust/padjust.R), NaN entries left out of m;
// their log₁₀ forms agree with the adjusted p-values.
func TestAdjustPAdjust(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "padjust", "padjust.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                        string
			P, Holm, Bonferroni, BH, BY []jf
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 5 {
		t.Fatalf("%d cases, want 5", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		p := fl(c.P)
		for _, m := range []struct {
			method Adjustment
			want   []jf
		}{{AdjustHolm, c.Holm}, {AdjustBonferroni, c.Bonferroni}, {AdjustBH, c.BH}, {AdjustBY, c.BY}, {AdjustNone, c.P}} {
			got := Adjust(m.method, p)
			lp := make([]float64, len(p))
			for i, v := range p {
				lp[i] = math.Log10(v)
			}
			lgot := AdjustLog10(m.method, lp)
			for i, w := range fl(m.want) {
				if math.IsNaN(w) != math.IsNaN(got[i]) || !math.IsNaN(w) && math.Abs(got[i]-w) > 1e-12*math.Max(w, 1e-300) {
					t.Errorf("%s %s[%d] = %v, want %v", c.Name, m.method, i, got[i], w)
				}
				if !math.IsNaN(w) && math.Abs(lgot[i]-math.Log10(w)) > 1e-12 {
					t.Errorf("%s %s log10[%d] = %v, want log10 %v", c.Name, m.method, i, lgot[i], w)
				}
			}
		}
	}
}
