package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/outfile"
)

var updateRender = flag.Bool("update-render", false, "rewrite report/testdata/*.golden.* of prereg, power, prove and schema")

// samplePrereg is an evaluation with every kind of line: a supported
// odds ratio with an extra statistic, a rate without a p-value, a
// verdict that is not computable, part warnings, checks and a lock.
func samplePrereg() *prereg.Result {
	nan := math.NaN()
	return &prereg.Result{
		Title: "Study",
		Verdicts: []*prereg.HypothesisResult{
			{ID: "H1", Statement: "Writes duplicate\nmore often (OR > 1)", Analysis: prereg.Primary, Verdict: prereg.Supported, Parts: []*prereg.PartResult{
				{Name: "gee", Kind: prereg.KindOddsRatio, Estimate: prereg.Stat{Name: "odds_ratio", Value: 2.0975, Lo: 1.5412, Hi: 2.8551, P: 2.8e-6, N: 1987},
					Bound: 1, Extra: []prereg.Stat{{Name: "rate_true", Value: 0.4231, Lo: nan, Hi: nan, P: nan, N: 781}},
					Rule: "supported iff the estimate > 1 with p < 0.05", Verdict: prereg.Supported, Warnings: []string{"3 clusters | few"}},
				{Name: "rate", Kind: prereg.KindRate, Estimate: prereg.Stat{Name: "rate_pct", Value: 42.25, Lo: 38.8, Hi: 45.7, P: nan, N: 781}, Bound: nan},
			}},
			{ID: "H1-adjusted", Statement: "adjusted", Analysis: prereg.Sensitivity, SensitivityOf: "H1", Verdict: prereg.NotComputable, Reason: "no episodes",
				Parts: []*prereg.PartResult{{Kind: prereg.KindMcNemar, Estimate: prereg.Stat{Value: nan, Lo: nan, Hi: nan, P: nan}, Bound: 0, Verdict: prereg.NotComputable, Reason: "no pairs"}}},
		},
		Provenance: &prereg.Provenance{Prereg: "study.yaml", PreregSHA256: "ab12", Ledger: "run.csv", LedgerSHA256: "cd34", LedgerBytes: 2048, ToolkitVersion: "v-test",
			Lock: &prereg.LockStatus{Present: true, Matches: true, LockedAt: "2026-03-01T00:00:00Z", PredatesLedger: "yes", LedgerCreated: "2026-03-02T00:00:00Z", LedgerCreatedFrom: "--ledger-created"}},
		Checks: []string{"study.yaml:7: level \"redd\" not in column team"},
	}
}

func renderGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testfile.CheckGolden(t, filepath.Join("testdata", name), got, *updateRender)
}

// The four renderings of an evaluation are pinned; JSON escapes < as the
// preregistration output always has.
func TestPreregFormats(t *testing.T) {
	for _, format := range PreregFormats {
		var b bytes.Buffer
		if err := Prereg(&b, samplePrereg(), format); err != nil {
			t.Fatal(err)
		}
		renderGolden(t, "prereg.golden."+format, b.Bytes())
	}
	if err := Prereg(&bytes.Buffer{}, samplePrereg(), "latex"); err == nil || !strings.Contains(err.Error(), `format "latex"`) {
		t.Errorf("latex: %v, want an unknown-format error", err)
	}
}

// A multi-line statement stays one line in text and one row in the
// Markdown table, whose pipes are escaped.
func TestPreregMultiLineStatement(t *testing.T) {
	r := &prereg.Result{Title: "t", Verdicts: []*prereg.HypothesisResult{{ID: "H1", Statement: "two\nlines | and\ta tab", Verdict: "supported"}}}
	for _, format := range []string{"text", "md"} {
		var b bytes.Buffer
		if err := Prereg(&b, r, format); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "two\nlines") || !strings.Contains(b.String(), "two lines") {
			t.Errorf("%s: the statement is not on one line:\n%s", format, b.String())
		}
		if format == "md" {
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(l, "| H1 ") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 6 {
					t.Errorf("md row broken: %q", l)
				}
			}
		}
	}
}

// PreregFiles writes the three renderings of the same result.
func TestPreregFiles(t *testing.T) {
	dir := t.TempDir()
	u := outfile.NewUnit()
	files, err := PreregFiles(u, filepath.Join(dir, "report"), samplePrereg())
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("wrote %v, want prereg.md, prereg.csv and prereg.json", files)
	}
	for i, format := range []string{"md", "csv", "json"} {
		var want bytes.Buffer
		if err := Prereg(&want, samplePrereg(), format); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(files[i]) != "prereg."+format || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s differs from Prereg(%q)", files[i], format)
		}
	}
}
