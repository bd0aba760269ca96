package sandbox

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/sandbox")

// golden compares got with testdata/sandbox/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testfile.CheckGolden(t, filepath.Join("..", "testdata", "sandbox", name), got, *update)
}

// The catalogue as agents see it, per contract: a change to any description
// or parameter shows up in review.
func TestCatalogueGolden(t *testing.T) {
	for _, c := range ledger.Contracts.Values {
		b, err := json.MarshalIndent(Catalogue(c), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "catalogue-"+c+".json", append(b, '\n'))
	}
}

// A pinned raw episode: the regression test for the world's random stream,
// ids and timings (docs/design.md, Determinism).
func TestRawEpisodeGolden(t *testing.T) {
	task, _ := NewTask("T02", 1)
	w, _ := NewWorld(Spec{Task: task, FocalIndex: 2, Fault: ledger.FaultTimeoutLate, Seed: 20260930, EpisodeID: "golden"})
	verifyClient(w)
	w.Advance(120)
	s := task.Steps[2]
	rt, ra, _ := ReadArgsFor(s.Tool, s.Args)
	w.Call(rt, ra)
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted, Uncertainties: []string{}})
	b, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "raw-T02-1-timeout_late.json", append(b, '\n'))
}
