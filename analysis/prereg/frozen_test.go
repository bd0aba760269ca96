package prereg

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// frozenPath holds the numbers of the Go H1–H6 that the embedded paper
// file replaced, on the committed sample and on seeds 1–3 of
// testdata/design.json. The Go code is gone (it lives in the history
// before the commit that removed analysis/hypotheses.go), so the file is
// frozen: it is the guard that the paper file still computes them.
var frozenPath = filepath.Join("testdata", "paper-h1h6.json")

var updateFrozen = flag.Bool("update-frozen", false, "rewrite "+frozenPath+" from the Go H1–H6 (only while they exist)")

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
	Verdict string       `json:"verdict"`
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

// TestFrozenGoHypotheses writes (-update-frozen) or checks the frozen
// numbers against the live Go code while both exist.
func TestFrozenGoHypotheses(t *testing.T) {
	got := map[string][]frozenHyp{}
	for name, eps := range paperCases(t) {
		hs, err := analysis.Hypotheses(&analysis.Data{Episodes: eps})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			fh := frozenHyp{ID: h.ID, Verdict: h.Verdict}
			for _, s := range h.Stats {
				fh.Stats = append(fh.Stats, frozenStat{s.Name, fnum(s.Value), fnum(s.Lo), fnum(s.Hi), s.N})
			}
			got[name] = append(got[name], fh)
		}
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *updateFrozen {
		if err := os.WriteFile(frozenPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(frozenPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b) {
		t.Errorf("%s differs from the Go H1–H6 (rerun with -update-frozen)", frozenPath)
	}
}
