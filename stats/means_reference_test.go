package stats

import (
	"math"
	"strconv"
	"testing"
)

// readCSV reads a committed CSV with a header into rows of fields by name.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	recs := readRecords(t, path)
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for j, h := range recs[0] {
			m[h] = r[j]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// meansReference is reference.csv by case and key.
func meansReference(t *testing.T) map[string]map[string]float64 {
	ref := map[string]map[string]float64{}
	for _, r := range readCSV(t, "testdata/means/reference.csv") {
		if ref[r["case"]] == nil {
			ref[r["case"]] = map[string]float64{}
		}
		ref[r["case"]][r["key"]] = num(t, r["value"])
	}
	return ref
}

// relErr is |got − want|/|want| (the absolute error when want is 0).
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func closeRel(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-300) || got == want
}

// TestMeanCIReference compares MeanCI with R 4.2.2 (t.test, and
// sandwich::vcovHC / vcovCL type HC1 on lm(y ~ 1, weights)): mtcars mpg
// by cyl and a generated clustered set (testdata/means/reference.R).
func TestMeanCIReference(t *testing.T) {
	ref := meansReference(t)
	type key struct{ set, group string }
	cells := map[key][]MeanCell{}
	var order []key
	for _, r := range readCSV(t, "testdata/means/means_data.csv") {
		k := key{r["set"], r["group"]}
		if _, ok := cells[k]; !ok {
			order = append(order, k)
		}
		w := num(t, r["w"])
		cl, _ := strconv.Atoi(r["cluster"])
		cells[k] = append(cells[k], MeanCell{Y: num(t, r["y"]), N: 1, SumW: w, SumW2: w * w, Cluster: cl})
	}
	unit := func(cs []MeanCell) []MeanCell {
		out := make([]MeanCell, len(cs))
		for i, c := range cs {
			c.SumW, c.SumW2 = 1, 1
			out[i] = c
		}
		return out
	}
	checked, worst := 0, 0.0
	for _, k := range order {
		for _, v := range []struct {
			name      string
			cells     []MeanCell
			clustered bool
		}{
			{"plain", unit(cells[k]), false},
			{"weighted", cells[k], false},
			{"clustered", cells[k], true},
			{"clustered-unweighted", unit(cells[k]), true},
		} {
			want, ok := ref[k.set+"/"+k.group+"/"+v.name]
			if !ok {
				continue
			}
			got := MeanCI(v.cells, v.clustered, 0.95)
			vals := map[string]float64{"mean": got.Mean, "sd": got.SD, "se": got.SE, "lo": got.Lo, "hi": got.Hi, "df": got.DF}
			for q, w := range want {
				checked++
				worst = math.Max(worst, relErr(vals[q], w))
				if !closeRel(vals[q], w, 1e-9) {
					t.Errorf("%s/%s/%s %s = %.17g, R %.17g (rel %.2g)", k.set, k.group, v.name, q, vals[q], w, math.Abs(vals[q]-w)/math.Abs(w))
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d reference values checked", checked)
	}
	t.Logf("%d values, largest relative difference from R %.3g", checked, worst)
}

// TestPairedReference compares PairedT and WilcoxonSignedRank with R
// 4.2.2's t.test and wilcox.test on the sleep differences (a zero and
// ties: normal approximation) and generated sets (exact at n = 20, 49;
// ties at n = 80); estimates to 1e-9 relative, p-values to 1e-8.
func TestPairedReference(t *testing.T) {
	ref := meansReference(t)
	sets := map[string][]float64{}
	var order []string
	for _, r := range readCSV(t, "testdata/means/paired_data.csv") {
		if _, ok := sets[r["set"]]; !ok {
			order = append(order, r["set"])
		}
		sets[r["set"]] = append(sets[r["set"]], num(t, r["d"]))
	}
	if len(order) != 4 {
		t.Fatalf("sets %v", order)
	}
	worstEst, worstP := 0.0, 0.0
	for _, s := range order {
		want := ref[s]
		tt := PairedT(sets[s], 0.95)
		w := WilcoxonSignedRank(sets[s])
		for _, c := range []struct {
			q        string
			got, tol float64
		}{
			{"t.mean", tt.Mean, 1e-9}, {"t.t", tt.T, 1e-9}, {"t.df", tt.DF, 1e-9}, {"t.lo", tt.Lo, 1e-9}, {"t.hi", tt.Hi, 1e-9},
			{"t.p", tt.P, 1e-8}, {"w.v", w.V, 1e-9}, {"w.p", w.P, 1e-8},
		} {
			if c.tol == 1e-8 {
				worstP = math.Max(worstP, relErr(c.got, want[c.q]))
			} else {
				worstEst = math.Max(worstEst, relErr(c.got, want[c.q]))
			}
			if !closeRel(c.got, want[c.q], c.tol) {
				t.Errorf("%s %s = %.17g, R %.17g", s, c.q, c.got, want[c.q])
			}
		}
		if wantExact := s == "exact20" || s == "exact49"; w.Exact != wantExact {
			t.Errorf("%s: exact %v, want %v", s, w.Exact, wantExact)
		}
	}
	t.Logf("largest relative difference from R: estimates %.3g, p-values %.3g", worstEst, worstP)
	// R's sleep example, t.test(extra ~ group, paired = TRUE): group 1 − 2.
	d := make([]float64, len(sets["sleep"]))
	for i, v := range sets["sleep"] {
		d[i] = -v
	}
	tt := PairedT(d, 0.95)
	if !closeRel(tt.T, ref["sleep12"]["t.t"], 1e-9) || !closeRel(tt.P, ref["sleep12"]["t.p"], 1e-8) {
		t.Errorf("sleep 1−2: t %.17g p %.17g, R %v", tt.T, tt.P, ref["sleep12"])
	}
}

// TestMeanCIEdges: no weight, one row, one cluster.
func TestMeanCIEdges(t *testing.T) {
	for _, c := range []struct {
		name      string
		cells     []MeanCell
		clustered bool
		meanNaN   bool
	}{
		{"zero weight", []MeanCell{{Y: 1, N: 2, SumW: 0, SumW2: 0}}, false, true},
		{"one row", []MeanCell{{Y: 3, N: 1, SumW: 1, SumW2: 1}}, false, false},
		{"one cluster", []MeanCell{{Y: 3, N: 1, SumW: 1, SumW2: 1}, {Y: 4, N: 1, SumW: 1, SumW2: 1}}, true, false},
	} {
		got := MeanCI(c.cells, c.clustered, 0.95)
		if math.IsNaN(got.Mean) != c.meanNaN || !math.IsNaN(got.SE) || !math.IsNaN(got.Lo) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
}
