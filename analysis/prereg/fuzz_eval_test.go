package prereg_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/report"
)

// FuzzEvaluate: a file that parses evaluates on a small ledger (the CLI's
// 423 episodes) to a result or an error, checks against it, and renders
// in every format — never a panic, never a hang.
func FuzzEvaluate(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "malformed-ledger", "*.yaml"))
	seeds = append(seeds, "paper.yaml", filepath.Join("testdata", "estimands.yaml"), filepath.Join("testdata", "study.yaml"),
		filepath.Join("testdata", "models.yaml"), filepath.Join("testdata", "calls.yaml"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(prereg.SkeletonBytes())
	eps := ledgertest.ReadEpisodes(f, filepath.Join("..", "..", "testdata", "cli", "episodes.csv"))
	d := table.NewData(eps)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := prereg.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			file.CheckLedgerAll(d, nil)
			r, err := file.Evaluate(d)
			if err != nil {
				return
			}
			for _, format := range []string{"text", "md", "csv", "json"} {
				var b bytes.Buffer
				if err := report.Prereg(&b, r, format); err != nil {
					t.Errorf("Prereg(%s): %v", format, err)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("check and evaluation took over 20 s on %q", data)
		}
	})
}
