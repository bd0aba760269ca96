package stats

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Reference files live in testdata/stats at the module root, with the
// scripts that computed them (ref_statsmodels.py, ref_R.R, gen_data.py);
// methods_goldens.json transcribes the golden values listed in
// docs/methods.md, Reference values.
const refDir = "../testdata/stats"

// jf is a float64 that also decodes JSON null (NaN), {} (NaN, R's NULL) and "Inf".
type jf float64

func (f *jf) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null", "{}", `"NA"`:
		*f = jf(math.NaN())
		return nil
	case `"Inf"`:
		*f = jf(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = jf(math.Inf(-1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = jf(v)
	return nil
}

func fl(v []jf) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(refDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// readRecords returns every record of the CSV file at path, its header
// first; any failure is fatal. (The package's tests, like the package,
// import nothing of the project: docs/design.md, Packages and layers.)
func readRecords(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// loadCSV returns the columns of a numeric CSV of refDir by header name.
func loadCSV(t testing.TB, name string) map[string][]float64 {
	t.Helper()
	return readColumns(t, filepath.Join(refDir, name))
}

// readColumns returns the columns of the numeric CSV at path by header
// name; an empty cell (R's write.csv of NA) is left out of its column.
func readColumns(t testing.TB, path string) map[string][]float64 {
	t.Helper()
	name := path
	recs := readRecords(t, path)
	cols := make(map[string][]float64)
	for _, r := range recs[1:] {
		for j, h := range recs[0] {
			if r[j] == "" {
				continue
			}
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cols[h] = append(cols[h], v)
		}
	}
	return cols
}

// modelMatrix builds [1, numeric..., dummies of factors (levels ≠ ref 0)...].
func modelMatrix(cols map[string][]float64, numeric []string, factors map[string]int, order []string) *mat.Dense {
	var n int
	for _, v := range cols {
		n = len(v)
		break
	}
	var data []float64
	p := 0
	for i := range n {
		row := []float64{1}
		for _, name := range order {
			if levels, ok := factors[name]; ok {
				for l := 1; l < levels; l++ {
					row = append(row, b2f(cols[name][i] == float64(l)))
				}
				continue
			}
			row = append(row, cols[name][i])
		}
		p = len(row)
		data = append(data, row...)
	}
	_ = numeric
	return mat.NewDense(n, p, data)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func ints(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// near reports |got − want| ≤ tol·max(1, |want|) (relative-or-absolute),
// with NaN equal to NaN and infinities equal.
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func checkVec(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: length %d, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.15g, want %.15g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}

func check(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.15g, want %.15g (tol %g)", what, got, want, tol)
	}
}

// checkRel compares relatively, |got − want| ≤ tol·|want| + 1e-15, for
// closed forms.
func checkRel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	ok := math.IsNaN(want) && math.IsNaN(got) || got == want ||
		math.Abs(got-want) <= tol*math.Abs(want)+1e-15
	if !ok {
		t.Errorf("%s = %.17g, want %.17g (rel tol %g)", what, got, want, tol)
	}
}
