package analysis

import (
	"math"
	"testing"
)

// Each preregistered rule on constructed cases on both sides of every
// threshold.
func TestVerdicts(t *testing.T) {
	n := math.NaN()
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"H1 clear", VerdictH1(40, 2.5, 0.001), Supported},
		{"H1 rate exactly 10", VerdictH1(10, 2.5, 0.001), Supported},
		{"H1 rate below 10", VerdictH1(9.9, 2.5, 0.001), NotSupported},
		{"H1 OR below 1", VerdictH1(40, 0.8, 0.001), NotSupported},
		{"H1 OR exactly 1", VerdictH1(40, 1, 0.5), NotSupported},
		{"H1 p not significant", VerdictH1(40, 2.5, 0.05), Inconclusive},
		{"H1 NaN", VerdictH1(40, n, 0.01), NotComputable},

		{"H2 both", VerdictH2(50, 20, 12), Supported},
		{"H2 harness exactly 10", VerdictH2(50, 20, 10), Supported},
		{"H2 contract only (paper)", VerdictH2(36, 9, 0), PartlySupport},
		{"H2 harness only", VerdictH2(10, 20, 15), PartlySupport},
		{"H2 neither", VerdictH2(10, 20, 9.9), NotSupported},
		{"H2 contract = model", VerdictH2(20, 20, 0), NotSupported},
		{"H2 no E3", VerdictH2(50, 20, n), PartlySupport},
		{"H2 no E3, A fails", VerdictH2(10, 20, n), NotSupported},
		{"H2 no E1", VerdictH2(n, n, 12), NotComputable},

		{"H3 clear", VerdictH3(13.4, 0.8, 0.005), Supported},
		{"H3 not significant", VerdictH3(13.4, 0.8, 0.2), Inconclusive},
		{"H3 equal", VerdictH3(5, 5, 0.9), NotSupported},
		{"H3 reversed", VerdictH3(1, 5, 0.001), NotSupported},
		{"H3 NaN p", VerdictH3(13, 1, n), NotComputable},

		{"H4 inside", VerdictH4(-4.9, 4.9), Supported},
		{"H4 touching margin", VerdictH4(-5, 4), Inconclusive},
		{"H4 paper", VerdictH4(-1.6, 8.5), Inconclusive},
		{"H4 entirely above", VerdictH4(5, 9), NotSupported},
		{"H4 entirely below", VerdictH4(-9, -5.5), NotSupported},
		{"H4 NaN", VerdictH4(n, n), NotComputable},

		{"H5 above", VerdictH5(20, 90), Supported},
		{"H5 straddles", VerdictH5(19.9, 30), Inconclusive},
		{"H5 below", VerdictH5(5, 19.9), NotSupported},
		{"H5 NaN", VerdictH5(n, 3), NotComputable},

		{"H6 all fine", VerdictH6([]float64{0, 2, 1}, []float64{0, 3, -1}), Supported},
		{"H6 one harness dup above 2", VerdictH6([]float64{0, 2.1, 1}, []float64{0, 0, 0}), NotSupported},
		{"H6 TS loss above 3", VerdictH6([]float64{0, 0}, []float64{0, 3.1}), NotSupported},
		{"H6 paper", VerdictH6([]float64{29, 28, 29}, []float64{0, 0, 0}), NotSupported},
		{"H6 none", VerdictH6(nil, nil), NotComputable},
		{"H6 NaN", VerdictH6([]float64{0, n}, []float64{0, 0}), NotComputable},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: verdict %q, want %q", c.name, c.got, c.want)
		}
	}
}
