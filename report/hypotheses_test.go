package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
)

// testHypothesis has a statistic without an interval (NaN bounds), a
// warning, and characters that CSV must quote.
func testHypothesis() *paper.Hypothesis {
	n := math.NaN()
	return &paper.Hypothesis{
		ID: "H1", Prediction: "duplicates, often", Rule: "rate ≥ 10%", Result: "rate 12.5% [5, 25]",
		Verdict: prereg.NotSupported,
		Stats: []prereg.Stat{
			{Name: "rate_pct", Value: 12.5, Lo: 5, Hi: 25.25, N: 80},
			{Name: "p", Value: 1.5e-9, Lo: n, Hi: n, N: 80},
			{Name: "or", Value: n, Lo: n, Hi: n},
		},
		Warnings: []string{"few pairs < 30"},
	}
}

func TestHypothesesFormats(t *testing.T) {
	h2 := &paper.Hypothesis{ID: "H2", Prediction: "p2", Rule: "r2", Result: "res2", Verdict: prereg.Supported}
	hs := []*paper.Hypothesis{testHypothesis(), h2}
	render := func(f string) string {
		t.Helper()
		var b bytes.Buffer
		if err := Hypotheses(&b, hs, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	for _, tc := range []struct {
		format string
		want   string
	}{
		{"text", "H1  NOT SUPPORTED\n    prediction: duplicates, often\n    result:     rate 12.5% [5, 25]\n    rule:       rate ≥ 10%\n    warning:    few pairs < 30\nH2  SUPPORTED\n    prediction: p2\n    result:     res2\n    rule:       r2\n"},
		{"md", "- **H1** — *not supported*. duplicates, often\n  - Result: rate 12.5% [5, 25]\n  - Rule: rate ≥ 10%\n  - Warning: few pairs < 30\n- **H2** — *supported*. p2\n  - Result: res2\n  - Rule: r2\n"},
		{"markdown", "- **H1** — *not supported*. duplicates, often\n"},
		// Full precision, NaN empty, no rows for a hypothesis without statistics.
		{"csv", "hypothesis,verdict,statistic,value,lo,hi,n\nH1,not supported,rate_pct,12.5,5,25.25,80\nH1,not supported,p,1.5e-09,,,80\nH1,not supported,or,,,,0\n"},
	} {
		if got := render(tc.format); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.format, got, tc.want)
		}
	}
	if got := render("csv"); strings.Contains(got, "H2") {
		t.Errorf("csv has rows for H2, which has no statistics:\n%s", got)
	}
	if _, err := csv.NewReader(strings.NewReader(render("csv"))).ReadAll(); err != nil {
		t.Errorf("csv does not parse: %v", err)
	}

	var js []struct {
		ID    string `json:"id"`
		Stats []struct {
			Name  string   `json:"name"`
			Value *float64 `json:"value"`
			Lo    *float64 `json:"lo"`
			N     int      `json:"n"`
		} `json:"stats"`
		Warnings []string `json:"warnings"`
		Verdict  string   `json:"verdict"`
	}
	s := render("json")
	if err := json.Unmarshal([]byte(s), &js); err != nil {
		t.Fatalf("json: %v\n%s", err, s)
	}
	if len(js) != 2 || js[0].ID != "H1" || js[0].Verdict != "not supported" || len(js[0].Stats) != 3 {
		t.Fatalf("json: %s", s)
	}
	if st := js[0].Stats; *st[1].Value != 1.5e-9 || st[1].Lo != nil || st[2].Value != nil || *st[0].Lo != 5 || st[0].N != 80 {
		t.Errorf("json stats (NaN must be null):\n%s", s)
	}
	// Empty lists are [], not null, so readers need not special-case them.
	if !strings.Contains(s, `"stats": []`) || !strings.Contains(s, `"warnings": []`) || !strings.Contains(s, `"few pairs < 30"`) {
		t.Errorf("json: empty lists or unescaped < expected:\n%s", s)
	}
	var b bytes.Buffer
	if err := Hypotheses(&b, nil, "json"); err != nil || b.String() != "[]\n" {
		t.Errorf("no hypotheses: %q, %v", b.String(), err)
	}
	b.Reset()
	err := Hypotheses(&b, hs, "latex")
	if err == nil || !strings.Contains(err.Error(), `"latex"`) || b.Len() != 0 {
		t.Errorf("unknown format: err %v, wrote %q", err, b.String())
	}
}

// TestHypothesesGolden pins the sample ledger's hypotheses in every
// format.
func TestHypothesesGolden(t *testing.T) {
	res := sampleResults(t)
	if len(res.Hypotheses) != 6 {
		t.Fatalf("%d hypotheses, want H1–H6", len(res.Hypotheses))
	}
	for _, f := range []string{"text", "md", "csv", "json"} {
		var b bytes.Buffer
		if err := Hypotheses(&b, res.Hypotheses, f); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "hypotheses."+Ext(f), b.Bytes())
	}
}
