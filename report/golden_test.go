package report

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testdataDir = filepath.Join("..", "testdata", "analysis")

// loadSample reads the committed sample ledger (made by the analysis
// package's TestGenerateSample) with encoding/json, so these tests do not
// depend on the ledger readers.
func loadSample(t testing.TB) *table.Data {
	t.Helper()
	eps, err := testfile.ReadJSONLinesGz[ledger.Episode](filepath.Join(testdataDir, "sample.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return table.NewData(eps)
}

// sampleTools is a fixed two-tool catalogue for Table 11's golden.
var sampleTools = []paper.Tool{
	{Name: "billing_create_charge", Write: true, Description: "Charge a customer's saved payment method. amount_cents is an integer number of cents. Returns the charge."},
	{Name: "billing_list_charges", Write: false, Description: "List a customer's charges (newest first), including refunded ones."},
}

// checkGolden compares got with testdata/analysis/golden/name, rewriting
// it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	var equal func(got, want []byte) bool
	if strings.HasSuffix(name, ".csv") {
		equal = sameNumbers
	}
	testfile.CheckGoldenFunc(t, filepath.Join(testdataDir, "golden", name), got, *update, equal)
}

// sameNumbers compares two CSV renderings field by field, numbers to a
// relative 1e-9: full-precision goldens must not fail on the last bits of
// an iterative fit (another CPU, another summation order).
func sameNumbers(a, b []byte) bool {
	ra, err1 := csv.NewReader(bytes.NewReader(a)).ReadAll()
	rb, err2 := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err1 != nil || err2 != nil || len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if len(ra[i]) != len(rb[i]) {
			return false
		}
		for j := range ra[i] {
			if ra[i][j] == rb[i][j] {
				continue
			}
			x, e1 := strconv.ParseFloat(ra[i][j], 64)
			y, e2 := strconv.ParseFloat(rb[i][j], 64)
			if e1 != nil || e2 != nil || math.Abs(x-y) > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
				return false
			}
		}
	}
	return true
}

// TestTableGoldens renders every table of the sample ledger in text (for
// people) and CSV (full precision) and compares with the goldens.
func TestTableGoldens(t *testing.T) {
	d := loadSample(t)
	res := paper.Analyze(d, paper.Options{Tools: sampleTools})
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	for _, tb := range append(res.Tables, res.Figures.Tables()...) {
		for _, f := range []string{"text", "csv"} {
			var b bytes.Buffer
			if err := Table(&b, tb, f); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tb.ID()+"."+Ext(f), b.Bytes())
		}
	}
}
