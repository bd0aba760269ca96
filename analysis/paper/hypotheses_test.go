package paper

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
)

// TestLayoutNeedsThePaper: Layout refuses an evaluation that is not of the
// paper's file, naming what is missing, rather than printing dashes.
func TestLayoutNeedsThePaper(t *testing.T) {
	f, err := prereg.Parse("skel.yaml", prereg.SkeletonBytes())
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.EvaluateEpisodes(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Layout(r); err == nil || !strings.Contains(err.Error(), "not the paper's preregistration") {
		t.Errorf("skeleton: %v, want an error saying it is not the paper's file", err)
	}
	p, err := prereg.Paper()
	if err != nil {
		t.Fatal(err)
	}
	r, err = p.EvaluateEpisodes(nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Verdicts[0].Parts = r.Verdicts[0].Parts[1:] // H1 without its rate
	if _, err := Layout(r); err == nil || !strings.Contains(err.Error(), `H1: no part "rate"`) {
		t.Errorf("H1 without a part: %v", err)
	}
}

// TestHypothesesMissingColumns: the hypotheses name the columns a ledger
// lacks instead of evaluating on zeros.
func TestHypothesesMissingColumns(t *testing.T) {
	d := loadSample(t)
	d.Columns = []string{"experiment", "model"}
	_, err := Hypotheses(d)
	var mc *MissingColumnsError
	if err == nil || !strings.Contains(err.Error(), "The hypotheses need column(s)") || !asMissing(err, &mc) || len(mc.Missing) == 0 {
		t.Fatalf("err = %v, want a MissingColumnsError", err)
	}
}

// BenchmarkHypotheses: the paper's preregistration evaluated and laid out
// as Table 12 on the sample ledger (Table 12 runs it on every report).
func BenchmarkHypotheses(b *testing.B) {
	d := loadSample(b)
	for b.Loop() {
		if _, err := Hypotheses(d); err != nil {
			b.Fatal(err)
		}
	}
}
