package paper

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// samplePath is the committed sample ledger (written by package
// analysis's TestGenerateSample).
var samplePath = filepath.Join("..", "..", "testdata", "analysis", "sample.jsonl.gz")

// loadSample reads the committed sample ledger with encoding/json (the
// tables' tests do not depend on the ledger readers).
func loadSample(t testing.TB) *table.Data {
	t.Helper()
	eps, err := testfile.ReadJSONLinesGz[ledger.Episode](samplePath)
	if err != nil {
		t.Fatalf("%v (run go test ./analysis/ -run TestGenerateSample -update)", err)
	}
	return table.NewData(eps)
}

// cliLedger is a small committed CSV ledger (the CLI's tests' episodes).
var cliLedger = filepath.Join("..", "..", "testdata", "cli", "episodes.csv")

// asMissing is errors.As for a *MissingColumnsError.
func asMissing(err error, mc **MissingColumnsError) bool { return errors.As(err, mc) }
