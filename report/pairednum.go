package report

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis"
)

type differenceJSON struct {
	Base           string    `json:"base"`
	Other          string    `json:"other"`
	Pairs          int       `json:"pairs"`
	UnmatchedBase  int       `json:"unmatched_base"`
	UnmatchedOther int       `json:"unmatched_other"`
	Mean           jnum      `json:"mean_diff"`
	SD             jnum      `json:"sd"`
	SE             jnum      `json:"se"`
	DF             jnum      `json:"df"`
	Lo             jnum      `json:"lo"`
	Hi             jnum      `json:"hi"`
	T              jnum      `json:"t"`
	V              *jnum     `json:"v,omitempty"`
	Zeros          *int      `json:"zeros,omitempty"`
	Exact          *bool     `json:"exact,omitempty"`
	P              jnum      `json:"p"`
	PAdj           jnum      `json:"p_adj"`
	MeanBoot       *bootJSON `json:"mean_diff_boot,omitempty"`
}

type pairedDiffJSON struct {
	Outcome     string             `json:"outcome"`
	Test        string             `json:"test"`
	Adjust      string             `json:"adjust"`
	Differences []differenceJSON   `json:"differences"`
	Bootstrap   *bootstrapJSON     `json:"bootstrap,omitempty"`
	Warnings    []analysis.Warning `json:"warnings"`
}

// pairedDifferences lays out a Paired result on a numeric outcome: one
// row per comparison, the mean difference base − other with its 95% t
// interval, and the t test's (or, with wilcoxon, the signed-rank V and)
// p-value.
func pairedDifferences(r *analysis.PairedResult) *Output {
	s := r.Spec
	wil := s.Test == "wilcoxon"
	res := pairedDiffJSON{Outcome: s.Outcome, Test: string(s.Test), Adjust: string(s.Adjust), Differences: []differenceJSON{}, Bootstrap: bootstrapOf(r.Bootstrap), Warnings: r.Warnings}
	head := []string{"base", "other", "pairs", "mean_diff", "sd", "lo", "hi", "t", "df"}
	if wil {
		head = append(head, "v")
	}
	head = append(head, "p", "p_adj")
	t, csvT := bootGrids(head, r.Bootstrap)
	for _, c := range r.Differences {
		j := differenceJSON{Base: c.Base, Other: c.Other, Pairs: c.Pairs, UnmatchedBase: c.UnmatchedBase, UnmatchedOther: c.UnmatchedOther,
			Mean: jnum(c.Mean), SD: jnum(c.SD), SE: jnum(c.SE), DF: jnum(c.DF), Lo: jnum(c.Lo), Hi: jnum(c.Hi), T: jnum(c.T), P: jnum(c.P), PAdj: jnum(c.PAdj),
			MeanBoot: bootOf(c.MeanBoot, 1)}
		cells := []any{c.Base, c.Other, c.Pairs, c.Mean, c.SD, c.Lo, c.Hi, c.T, c.DF}
		if wil {
			v, z, e := jnum(c.V), c.Zeros, c.Exact
			j.V, j.Zeros, j.Exact = &v, &z, &e
			cells = append(cells, c.V)
		}
		cells = append(cells, P(c.P), P(c.PAdj))
		res.Differences = append(res.Differences, j)
		addBootRow(t, csvT, cells, cells, c.MeanBoot, r.Bootstrap, false)
	}
	test := "paired t test"
	if wil {
		test = "Wilcoxon signed-rank test (exact when n < 50 without ties or zeros, else normal with continuity correction)"
	}
	title := []string{fmt.Sprintf("%s: %s − each other %s (mean difference, 95%% t interval), %s, %s adjustment", s.Outcome, s.Base, s.Arm, test, s.Adjust)}
	if r.Bootstrap != nil {
		title = append(title, bootLine(r.Bootstrap))
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: []*Grid{t}, Warnings: warningTexts(r.Warnings)}
}
