package prereg

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// frozenPath holds the numbers of the Go H1–H6 that the embedded paper
// file replaced, on the committed sample and on seeds 1–3 of
// testdata/design.json, written by that Go code (TestFrozenGoHypotheses,
// in the history up to the commit that removed analysis/hypotheses.go).
// The code is gone, so the file is frozen and has no -update: it is the
// guard that the paper file still computes what the Go code did.
var frozenPath = filepath.Join("testdata", "paper-h1h6.json")

// fnum is a float that is null in JSON when NaN and keeps every bit.
type fnum float64

func (f fnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(f), 'g', -1, 64)), nil
}

func (f *fnum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = fnum(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	*f = fnum(v)
	return err
}

// frozenStat is one statistic of the Go code: its value and interval
// (null where it reported none) and the rows behind it.
type frozenStat struct {
	Name  string `json:"name"`
	Value fnum   `json:"value"`
	Lo    fnum   `json:"lo"`
	Hi    fnum   `json:"hi"`
	N     int    `json:"n"`
}

type frozenHyp struct {
	ID      string       `json:"id"`
	Verdict Verdict      `json:"verdict"`
	Stats   []frozenStat `json:"stats"`
}

// paperCases are the ledgers of the frozen comparison.
func paperCases(t *testing.T) map[string][]*ledger.Episode {
	t.Helper()
	sample, err := testfile.ReadJSONLinesGz[ledger.Episode](filepath.Join("..", "..", "testdata", "analysis", "sample.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]*ledger.Episode{"sample": sample}
	for _, seed := range []uint64{1, 2, 3} {
		cases["seed"+strconv.FormatUint(seed, 10)] = simulate(t, seed)
	}
	return cases
}

func readFrozen(t *testing.T) map[string][]frozenHyp {
	t.Helper()
	b, err := os.ReadFile(frozenPath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]frozenHyp
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", frozenPath, err)
	}
	return m
}

// BenchmarkPaperEvaluate: Evaluate of the whole paper file (with its
// sensitivity analysis) on seed 1 of testdata/design.json, as power calls it.
func BenchmarkPaperEvaluate(b *testing.B) {
	eps := simulate(b, 1)
	f, err := Paper()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := f.EvaluateEpisodes(eps); err != nil {
			b.Fatal(err)
		}
	}
}
