package report

import (
	"fmt"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis"
)

type meanRowJSON struct {
	Group    orderedObject `json:"group"`
	N        int64         `json:"n"`
	SumW     jnum          `json:"sum_w"`
	Mean     jnum          `json:"mean"`
	SD       jnum          `json:"sd"`
	SE       jnum          `json:"se"`
	Clusters int           `json:"clusters"`
	DF       jnum          `json:"df"`
	Lo       jnum          `json:"lo"`
	Hi       jnum          `json:"hi"`
}

type meansJSON struct {
	Outcome  string             `json:"outcome"`
	Weight   string             `json:"weight"`
	Cluster  string             `json:"cluster"`
	Level    float64            `json:"level"`
	Rows     []meanRowJSON      `json:"rows"`
	Warnings []analysis.Warning `json:"warnings"`
}

// Means lays out a Means result: one row per group. The table shows the
// clusters column only with a cluster; CSV adds Σw, the clusters and the
// degrees of freedom, and JSON carries every number (NaN is null).
func Means(r *analysis.MeansResult) *Output {
	s := r.Spec
	by := s.By
	res := meansJSON{Outcome: s.Outcome, Weight: r.Weight, Cluster: s.Cluster, Level: s.Level, Warnings: r.Warnings}
	cols := []string{"n", "mean", "sd", "se", "lo", "hi"}
	if s.Cluster != "" {
		cols = append(cols, "clusters")
	}
	t := &Grid{Header: groupHeader(by, cols...)}
	csvT := &Grid{Header: groupHeader(by, "n", "sum_w", "mean", "sd", "se", "clusters", "df", "lo", "hi")}
	for _, g := range r.Rows {
		obj, cells := groupRow(by, r.Kinds, g.Levels)
		res.Rows = append(res.Rows, meanRowJSON{Group: obj, N: g.N, SumW: jnum(g.SumW), Mean: jnum(g.Mean), SD: jnum(g.SD), SE: jnum(g.SE),
			Clusters: g.Clusters, DF: jnum(g.DF), Lo: jnum(g.Lo), Hi: jnum(g.Hi)})
		csvT.Add(append(slices.Clone(cells), g.N, g.SumW, g.Mean, g.SD, g.SE, g.Clusters, g.DF, g.Lo, g.Hi)...)
		cells = append(cells, g.N, g.Mean, g.SD, g.SE, g.Lo, g.Hi)
		if s.Cluster != "" {
			cells = append(cells, g.Clusters)
		}
		t.Add(cells...)
	}
	ci := fmt.Sprintf("%g%% t interval", 100*s.Level)
	how := "HC1 (robust) SE on n−1 df"
	if r.Weight == "" {
		how = "SE s/√n on n−1 df"
	}
	if s.Cluster != "" {
		how = fmt.Sprintf("CR1 SE clustered on %s, G−1 df", s.Cluster)
	}
	w := "unweighted"
	if r.Weight != "" {
		w = "weighted by " + r.Weight
	}
	title := []string{fmt.Sprintf("mean of %s, %s; %s, %s", s.Outcome, w, ci, how)}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: []*Grid{t}, Warnings: warningTexts(r.Warnings)}
}
