package mixed

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// table is a CSV file from testdata/mixed read into named numeric columns.
type table map[string][]float64

func readTable(t testing.TB, name string) table {
	t.Helper()
	recs := readCSV(t, name)
	tb := table{}
	for _, r := range recs[1:] {
		for j, h := range recs[0] {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tb[h] = append(tb[h], v)
		}
	}
	return tb
}

// readCSV reads every record of testdata/mixed/name. The package's tests,
// like the package, use only gonum and the standard library (docs/design.md, Packages and layers).
func readCSV(t testing.TB, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "mixed", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// refValues reads testdata/mixed/ref.csv (made by make.R) as
// case → quantity → values.
func refValues(t testing.TB) map[string]map[string][]float64 {
	t.Helper()
	recs := readCSV(t, "ref.csv")
	out := map[string]map[string][]float64{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		if out[r[0]] == nil {
			out[r[0]] = map[string][]float64{}
		}
		out[r[0]][r[1]] = append(out[r[0]][r[1]], v)
	}
	return out
}

// design builds X from an intercept and the named columns; a column name
// "f=v" is the indicator of column f equal to v.
func design(tb table, cols ...string) *mat.Dense {
	n := len(tb["y"])
	x := mat.NewDense(n, 1+len(cols), nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 1)
		for j, c := range cols {
			if name, val, ok := strings.Cut(c, "="); ok {
				v, _ := strconv.ParseFloat(val, 64)
				if tb[name][i] == v {
					x.Set(i, j+1, 1)
				}
				continue
			}
			x.Set(i, j+1, tb[c][i])
		}
	}
	return x
}

// factor makes a Group from one or more integer columns (their combination
// is the level, as R's interaction a:s). Levels are in order of first
// appearance.
func factor(tb table, name string, cols ...string) Group {
	n := len(tb["y"])
	g := Group{Name: name, Index: make([]int, n)}
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		var parts []string
		for _, c := range cols {
			parts = append(parts, strconv.FormatFloat(tb[c][i], 'g', -1, 64))
		}
		k := strings.Join(parts, ":")
		j, ok := seen[k]
		if !ok {
			j = len(g.Levels)
			seen[k] = j
			g.Levels = append(g.Levels, k)
		}
		g.Index[i] = j
	}
	return g
}

type lme4Case struct {
	name   string // case in ref.csv
	data   string
	cols   []string
	groups func(table) []Group
	// refOrder[f] is the position in lme4's theta of our group f.
	refOrder []int
	// lme4Names[f] is the ranef name of our group f.
	lme4Names []string
	nagq      int // 0: lme4's nAGQ = 0 (Options.NAGQ0)
}

func lme4Cases() []lme4Case {
	period := []string{"period=2", "period=3", "period=4"}
	herd := func(tb table) []Group { return []Group{factor(tb, "herd", "herd")} }
	mi := func(tb table) []Group { return []Group{factor(tb, "m", "m"), factor(tb, "i", "i")} }
	onlyI := func(tb table) []Group { return []Group{factor(tb, "i", "i")} }
	return []lme4Case{
		{"cbpp_agq1", "cbpp.csv", period, herd, []int{0}, []string{"herd"}, 1},
		{"cbpp_agq10", "cbpp.csv", period, herd, []int{0}, []string{"herd"}, 10},
		{"cbpp_agq25", "cbpp.csv", period, herd, []int{0}, []string{"herd"}, 25},
		{"cbpp_agq0", "cbpp.csv", period, herd, []int{0}, []string{"herd"}, 0},
		{"crossed_laplace", "crossed.csv", []string{"c"}, mi, []int{1, 0}, []string{"m", "i"}, 1},
		{"crossed_i_laplace", "crossed.csv", []string{"c"}, onlyI, []int{0}, []string{"i"}, 1},
		{"crossed_i_agq15", "crossed.csv", []string{"c"}, onlyI, []int{0}, []string{"i"}, 15},
		{"singular_laplace", "singular.csv", []string{"c"}, mi, []int{1, 0}, []string{"m", "i"}, 1},
		{"unbalanced_crossed", "unbalanced.csv", []string{"x", "z"},
			func(tb table) []Group { return []Group{factor(tb, "a", "a"), factor(tb, "b", "b")} },
			[]int{0, 1}, []string{"a", "b"}, 1},
		{"unbalanced_nested", "unbalanced.csv", []string{"x", "z"},
			func(tb table) []Group { return []Group{factor(tb, "a", "a"), factor(tb, "as", "a", "s")} },
			[]int{1, 0}, []string{"a", "as"}, 1},
		{"unbalanced_three", "unbalanced.csv", []string{"x", "z"},
			func(tb table) []Group {
				return []Group{factor(tb, "a", "a"), factor(tb, "as", "a", "s"), factor(tb, "b", "b")}
			},
			[]int{1, 0, 2}, []string{"a", "as", "b"}, 1},
		{"unbalanced_a_agq10", "unbalanced.csv", []string{"x", "z"},
			func(tb table) []Group { return []Group{factor(tb, "a", "a")} },
			[]int{0}, []string{"a"}, 10},
	}
}

func close(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestFitLogitLme4 compares with R 4.2.2, lme4 1.1-31, tight settings
// (testdata/mixed/make.R: tolPwrss 1e-12, bobyqa rhoend 1e-12). Tolerances:
// β, θ 1e-4 (docs/methods.md, Reference values); log-likelihood 1e-6; Hessian SEs 2e-4 and RX SEs
// 1e-4 relative; conditional modes 2e-4.
func TestFitLogitLme4(t *testing.T) {
	ref := refValues(t)
	for _, c := range lme4Cases() {
		t.Run(c.name, func(t *testing.T) {
			tb := readTable(t, c.data)
			X := design(tb, c.cols...)
			groups := c.groups(tb)
			want := ref[c.name]
			// fast is Fit's path (the analytic gradient for the Laplace
			// cases), the same references at the same tolerances.
			for _, mode := range []struct{ rx, fast bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				rx := mode.rx
				res, err := fitLogit(X, tb["y"], groups, Options{NAGQ: c.nagq, NAGQ0: c.nagq == 0, RXSE: rx}, mode.fast)
				if err != nil {
					t.Fatal(err)
				}
				seName, seTol := "se", 2e-4
				if rx && c.nagq > 0 {
					seName, seTol = "se_rx", 1e-4
				}
				for j, b := range want["beta"] {
					if !close(res.Coef[j], b, 1e-4) {
						t.Errorf("β[%d] = %.10g, lme4 %.10g", j, res.Coef[j], b)
					}
					if !close(res.SE[j], want[seName][j], seTol*want[seName][j]) {
						t.Errorf("%s[%d] = %.10g, lme4 %.10g", seName, j, res.SE[j], want[seName][j])
					}
				}
				for f, k := range c.refOrder {
					if !close(res.Theta[f], want["theta"][k], 1e-4) {
						t.Errorf("θ[%s] = %.10g, lme4 %.10g", groups[f].Name, res.Theta[f], want["theta"][k])
					}
					for j, l := range groups[f].Levels {
						m, ok := want["mode:"+c.lme4Names[f]+"="+l]
						if !ok {
							t.Fatalf("no lme4 mode for %s=%s", c.lme4Names[f], l)
						}
						if !close(res.Modes[f][j], m[0], 2e-4) {
							t.Errorf("mode %s=%s: %.8g, lme4 %.8g", groups[f].Name, l, res.Modes[f][j], m[0])
						}
					}
				}
				if !close(res.LogLik, want["loglik"][0], 1e-8) {
					t.Errorf("logLik = %.12g, lme4 %.12g", res.LogLik, want["loglik"][0])
				}
				if !close(res.AIC, want["aic"][0], 1e-8) || !close(res.BIC, want["bic"][0], 1e-8) {
					t.Errorf("AIC, BIC = %.10g, %.10g; lme4 %.10g, %.10g", res.AIC, res.BIC, want["aic"][0], want["bic"][0])
				}
				if got, w := res.Singular, want["singular"][0] == 1; got != w {
					t.Errorf("singular = %v, lme4 %v", got, w)
				}
				if !res.Converged {
					t.Errorf("not converged: %v", res.Warnings)
				}
				if lo, hi := res.Wald(1, 0.95); !close(lo, res.ORLo[1], 1e-12) || !close(hi, res.ORHi[1], 1e-12) {
					t.Errorf("Wald(1, 0.95) = %g, %g; ORLo, ORHi %g, %g", lo, hi, res.ORLo[1], res.ORHi[1])
				}
			}
		})
	}
}

// TestFitLogitMethodsGolden checks the tight-tolerance lme4 column of
// docs/methods.md, Reference values (R 4.2.2, lme4 1.1-31, tolPwrss = 1e-12), β and θ to
// 1e-4, log-likelihood to 1e-5, SEs to 1e-3 relative (that column's
// optimiser stopped about 2e-5 from the optimum).
func TestFitLogitMethodsGolden(t *testing.T) {
	cb := readTable(t, "cbpp.csv")
	cr := readTable(t, "crossed.csv")
	sg := readTable(t, "singular.csv")
	period := []string{"period=2", "period=3", "period=4"}
	tests := []struct {
		name   string
		X      *mat.Dense
		y      []float64
		groups []Group
		nagq   int
		beta   []float64
		theta  []float64
		loglik float64
		se     []float64
	}{
		{"B Laplace", design(cb, period...), cb["y"], []Group{factor(cb, "herd", "herd")}, 1,
			[]float64{-1.398532002814, -0.992315916444, -1.128664182010, -1.580315639170},
			[]float64{0.642269687352}, -277.501941559,
			[]float64{0.232476821397, 0.306645254475, 0.326644985240, 0.427443367748}},
		{"B nAGQ=25", design(cb, period...), cb["y"], []Group{factor(cb, "herd", "herd")}, 25,
			[]float64{-1.399225468022, -0.991390101011, -1.127834141068, -1.579443234266},
			[]float64{0.647512939198}, -277.459028728,
			[]float64{0.233509990851, 0.306766562998, 0.326769429972, 0.427589748291}},
		{"C crossed Laplace", design(cr, "c"), cr["y"], []Group{factor(cr, "i", "i"), factor(cr, "m", "m")}, 1,
			[]float64{-0.279700747843, 0.888319606233},
			[]float64{0.591946889374, 0.398896005727}, -167.354420262,
			[]float64{0.345065638033, 0.403000793308}},
		{"C (1|i) Laplace", design(cr, "c"), cr["y"], []Group{factor(cr, "i", "i")}, 1,
			[]float64{-0.269036072073, 0.854683981023},
			[]float64{0.546784870459}, -169.326151381,
			[]float64{0.267353332398, 0.382347915523}},
		{"C (1|i) nAGQ=15", design(cr, "c"), cr["y"], []Group{factor(cr, "i", "i")}, 15,
			[]float64{-0.269268999955, 0.855546713533},
			[]float64{0.555929227226}, -169.259916022,
			[]float64{0.269759577913, 0.385739117257}},
		{"singular", design(sg, "c"), sg["y"], []Group{factor(sg, "i", "i"), factor(sg, "m", "m")}, 1,
			[]float64{-0.05638415876, 0.45598994649},
			[]float64{0, 0.2423405547}, -98.22204291, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := FitLogit(tt.X, tt.y, tt.groups, Options{NAGQ: tt.nagq})
			if err != nil {
				t.Fatal(err)
			}
			for j, b := range tt.beta {
				if !close(res.Coef[j], b, 1e-4) {
					t.Errorf("β[%d] = %.10g, want %.10g", j, res.Coef[j], b)
				}
			}
			for j, s := range tt.se {
				if math.Abs(res.SE[j]-s) > 1e-3*s {
					t.Errorf("SE[%d] = %.10g, want %.10g", j, res.SE[j], s)
				}
			}
			for f, th := range tt.theta {
				if !close(res.Theta[f], th, 1e-4) {
					t.Errorf("θ[%d] = %.10g, want %.10g", f, res.Theta[f], th)
				}
			}
			if !close(res.LogLik, tt.loglik, 1e-7) {
				t.Errorf("logLik = %.10g, want %.10g", res.LogLik, tt.loglik)
			}
		})
	}
}

func TestSingularExactZero(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(map[bool]string{false: "FitLogit", true: "Fit"}[fast], func(t *testing.T) { testSingularExactZero(t, fast) })
	}
}

func testSingularExactZero(t *testing.T, fast bool) {
	sg := readTable(t, "singular.csv")
	res, err := fitLogit(design(sg, "c"), sg["y"], []Group{factor(sg, "i", "i"), factor(sg, "m", "m")}, Options{}, fast)
	if err != nil {
		t.Fatal(err)
	}
	if res.Theta[0] != 0 || !res.Singular {
		t.Errorf("θ_i = %g, singular = %v; want exactly 0 and true", res.Theta[0], res.Singular)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || w.Code == WarnSingular && strings.Contains(w.Message, "singular")
	}
	if !found {
		t.Errorf("no singular-fit warning in %v", res.Warnings)
	}
	for _, b := range res.Modes[0] {
		if b != 0 {
			t.Fatalf("modes of a zero-variance group should be 0, got %v", res.Modes[0])
		}
	}
}

func ExampleFitLogit() {
	// Eight clusters of twelve rows with a binary covariate x; the share of
	// ones grows with the cluster index, so the clusters differ.
	const k, m = 8, 12
	X := mat.NewDense(k*m, 2, nil)
	var y []float64
	g := Group{Name: "cluster", Index: make([]int, k*m)}
	for j := 0; j < k; j++ {
		g.Levels = append(g.Levels, fmt.Sprint("c", j))
		for r := 0; r < m; r++ {
			i := j*m + r
			x := float64(r % 2)
			X.Set(i, 0, 1)
			X.Set(i, 1, x)
			g.Index[i] = j
			// Ones: r < 2+j/2 in even rows, r < 4+j in odd rows.
			lim := 2 + j/2
			if x == 1 {
				lim = 4 + j
			}
			y = append(y, float64(btoi(r < lim)))
		}
	}
	res, err := FitLogit(X, y, []Group{g}, Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("OR(x) = %.3f [%.3f, %.3f]\n", res.OR[1], res.ORLo[1], res.ORHi[1])
	fmt.Printf("SD(cluster) = %.3f, logLik = %.3f, singular = %v\n", res.SD[0], res.LogLik, res.Singular)
	// Output:
	// OR(x) = 2.844 [1.224, 6.608]
	// SD(cluster) = 0.249, logLik = -63.104, singular = false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
