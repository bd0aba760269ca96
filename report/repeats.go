package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
)

type repeatRowJSON struct {
	Group    orderedObject `json:"group"`
	Measure  string        `json:"measure"`
	Outcome  string        `json:"outcome,omitempty"`
	K        int           `json:"k,omitempty"`
	Worlds   int           `json:"worlds"`
	Excluded int           `json:"excluded"`
	Episodes int64         `json:"episodes"`
	Estimate jnum          `json:"estimate"`
	SE       jnum          `json:"se"`
	Lo       jnum          `json:"lo"`
	Hi       jnum          `json:"hi"`
	Clusters int           `json:"clusters"`
}

type repeatsJSON struct {
	Worlds      int                `json:"worlds"`
	Episodes    int64              `json:"episodes"`
	Runs        map[string]int     `json:"runs"` // worlds by their number of runs
	RepeatBy    []string           `json:"repeat_by"`
	Cluster     string             `json:"cluster"`
	PassK       []repeatRowJSON    `json:"pass_k"`
	Consistency []repeatRowJSON    `json:"consistency,omitempty"`
	Warnings    []analysis.Warning `json:"warnings"`
}

// Repeats lays out a Repeats result: pass^k by group, outcome and k, then
// the consistency measures (CSV: one table, the measure in a column).
func Repeats(r *analysis.RepeatsResult) *Output {
	s := r.Spec
	res := repeatsJSON{Worlds: r.Worlds, Episodes: r.Episodes, Runs: map[string]int{}, RepeatBy: s.RepeatBy, Cluster: s.Cluster,
		PassK: []repeatRowJSON{}, Warnings: r.Warnings}
	for n, w := range r.Repeats {
		res.Runs[fmt.Sprint(n)] = w
	}
	lead := func(cols ...string) []string { return append(groupHeader(s.By), cols...) }
	pass := &Grid{Header: lead("outcome", "k", "worlds", "pass^k", "se", "lo", "hi")}
	long := &Grid{Header: lead("measure", "outcome", "k", "worlds", "excluded", "episodes", "estimate", "se", "lo", "hi", "clusters")}
	add := func(rows []analysis.RepeatRow, into *[]repeatRowJSON) {
		for _, x := range rows {
			obj, cells := groupRow(s.By, r.Kinds, x.Levels)
			*into = append(*into, repeatRowJSON{obj, x.Measure, x.Outcome, x.K, x.Worlds, x.Excluded, x.Episodes, jnum(x.Estimate), jnum(x.SE), jnum(x.Lo), jnum(x.Hi), x.Clusters})
			var k any
			if x.K > 0 {
				k = x.K
			}
			long.Add(append(slices.Clone(cells), x.Measure, x.Outcome, k, x.Worlds, x.Excluded, x.Episodes, x.Estimate, x.SE, x.Lo, x.Hi, x.Clusters)...)
		}
	}
	add(r.PassK, &res.PassK)
	for _, x := range r.PassK {
		_, cells := groupRow(s.By, r.Kinds, x.Levels)
		pass.Add(append(cells, x.Outcome, x.K, x.Worlds, x.Estimate, x.SE, x.Lo, x.Hi)...)
	}
	tables := []*Grid{pass}
	if s.Consistency {
		add(r.Consistency, &res.Consistency)
		con := &Grid{Header: lead("measure", "worlds", "estimate", "se", "lo", "hi")}
		for _, x := range r.Consistency {
			_, cells := groupRow(s.By, r.Kinds, x.Levels)
			con.Add(append(cells, x.Measure, x.Worlds, x.Estimate, x.SE, x.Lo, x.Hi)...)
		}
		tables = append(tables, con)
	}
	var runs []string
	for _, n := range slices.Sorted(maps.Keys(r.Repeats)) {
		runs = append(runs, fmt.Sprintf("%d × %d", r.Repeats[n], n))
	}
	title := []string{fmt.Sprintf("%d worlds, %d episodes (worlds × runs: %s); worlds by %s", r.Worlds, r.Episodes, strings.Join(runs, ", "), strings.Join(s.RepeatBy, ", ")),
		fmt.Sprintf("mean over worlds of C(c, k)/C(n, k); %s t intervals clustered on %s, clipped to [0, 1]", levelPercent(s.Level), s.Cluster)}
	return &Output{Value: res, CSV: long, Title: title, Tables: tables, Warnings: warningTexts(r.Warnings)}
}
