package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/stats"
)

// bootJSON is an estimate's bootstrap SE and intervals.
type bootJSON struct {
	SE         jnum    `json:"se"`
	Percentile [2]jnum `json:"percentile"`
	BCa        [2]jnum `json:"bca"`
}

func bootOf(b *analysis.BootInterval, scale float64) *bootJSON {
	if b == nil {
		return nil
	}
	return &bootJSON{SE: jnum(scale * b.SE), Percentile: [2]jnum{jnum(scale * b.PercLo), jnum(scale * b.PercHi)},
		BCa: [2]jnum{jnum(scale * b.BCaLo), jnum(scale * b.BCaHi)}}
}

type bootstrapJSON struct {
	Kind       string  `json:"kind"`
	Replicates int     `json:"replicates"`
	Failed     int     `json:"failed"`
	Cluster    string  `json:"cluster,omitempty"`
	Clusters   int     `json:"clusters,omitempty"`
	Seed       uint64  `json:"seed"`
	Level      float64 `json:"level"`
	Interval   string  `json:"interval"`
}

func bootstrapOf(b *analysis.BootstrapInfo) *bootstrapJSON {
	if b == nil {
		return nil
	}
	return &bootstrapJSON{b.Kind, b.Replicates, b.Failed, b.Cluster, b.Clusters, b.Seed, b.Level, string(b.Interval)}
}

// bootCSVHeader are the CSV columns of an estimate's bootstrap (bootCSV).
var bootCSVHeader = []string{"boot_se", "perc_lo", "perc_hi", "bca_lo", "bca_hi"}

// bootCSV are the cells of bootCSVHeader, scaled by k (nil: empty cells).
func bootCSV(b *analysis.BootInterval, k float64) []any {
	if b == nil {
		return []any{nil, nil, nil, nil, nil}
	}
	return []any{k * b.SE, k * b.PercLo, k * b.PercHi, k * b.BCaLo, k * b.BCaHi}
}

// bootGrids are the text and CSV grids of a result with header head: one
// grid, or with a bootstrap the text grid with boot_lo and boot_hi and
// the CSV grid with every bootstrap column (bootCSVHeader).
func bootGrids(head []string, b *analysis.BootstrapInfo) (text, csv *Grid) {
	text = &Grid{Header: head}
	if b == nil {
		return text, text
	}
	text.Header = append(slices.Clone(head), "boot_lo", "boot_hi")
	return text, &Grid{Header: append(slices.Clone(head), bootCSVHeader...)}
}

// addBootRow adds a row to the grids of bootGrids: textCells and
// csvCells, then the estimate's bootstrap interval (boot_lo and boot_hi
// as PP cells when pp) or its CSV columns.
func addBootRow(text, csv *Grid, textCells, csvCells []any, iv *analysis.BootInterval, b *analysis.BootstrapInfo, pp bool) {
	if b == nil {
		text.Add(textCells...)
		return
	}
	lo, hi := iv.Bounds(b.Interval)
	var l, h any = lo, hi
	if pp {
		l, h = PP(lo), PP(hi)
	}
	text.Add(append(slices.Clone(textCells), l, h)...)
	csv.Add(append(slices.Clone(csvCells), bootCSV(iv, 1)...)...)
}

// bootLine is the title line that says how bootstrap intervals were made.
func bootLine(b *analysis.BootstrapInfo) string {
	s := fmt.Sprintf("bootstrap: %d %s replicates", b.Replicates, b.Kind)
	if b.Cluster != "" {
		what := "resampling"
		if b.Kind == "parametric" {
			what = "jackknife over"
		}
		s += fmt.Sprintf(", %s %d clusters of %s", what, b.Clusters, b.Cluster)
	}
	s += fmt.Sprintf(", seed %d; %s %s intervals", b.Seed, levelPercent(b.Level), intervalName(b.Interval))
	if b.Failed > 0 {
		s += fmt.Sprintf(" (%d replicates failed)", b.Failed)
	}
	return s
}

func intervalName(m analysis.BootMethod) string {
	if m == analysis.BootPercentile {
		return "percentile"
	}
	return "BCa"
}

func levelPercent(level float64) string { return TextCell(100*level, 4) + "%" }

type contrastMeanJSON struct {
	Group orderedObject `json:"group"`
	Level string        `json:"level"`
	N     int64         `json:"n"`
	Mean  jnum          `json:"mean"`
	SE    jnum          `json:"se"`
	Lo    jnum          `json:"lo"`
	Hi    jnum          `json:"hi"`
	Boot  *bootJSON     `json:"boot,omitempty"`
}

type contrastRowJSON struct {
	Group     orderedObject `json:"group"`
	Level     string        `json:"level"`
	Base      string        `json:"base"`
	N         int64         `json:"n"`
	Diff      jnum          `json:"diff"`
	DiffSE    jnum          `json:"diff_se"`
	DiffLo    jnum          `json:"diff_lo"`
	DiffHi    jnum          `json:"diff_hi"`
	Z         jnum          `json:"z"`
	P         jnum          `json:"p"`
	PAdj      jnum          `json:"p_adj"`
	Ratio     jnum          `json:"ratio"`
	RatioSE   jnum          `json:"ratio_se"`
	RatioLo   jnum          `json:"ratio_lo"`
	RatioHi   jnum          `json:"ratio_hi"`
	RatioP    jnum          `json:"ratio_p"`
	DiffBoot  *bootJSON     `json:"diff_boot,omitempty"`
	RatioBoot *bootJSON     `json:"ratio_boot,omitempty"`
}

type contrastJSON struct {
	Fit           string             `json:"fit"`
	Family        string             `json:"family"`
	Link          string             `json:"link"`
	Formula       string             `json:"formula"`
	N             int64              `json:"n"`
	Variable      string             `json:"variable"`
	Base          string             `json:"base"`
	By            []string           `json:"by"`
	RandomEffects string             `json:"random_effects"`
	Level         float64            `json:"level"`
	Adjust        string             `json:"adjust"`
	DiffUnit      string             `json:"diff_unit"`
	Means         []contrastMeanJSON `json:"means"`
	Contrasts     []contrastRowJSON  `json:"contrasts"`
	Bootstrap     *bootstrapJSON     `json:"bootstrap,omitempty"`
	Warnings      []analysis.Warning `json:"warnings"`
}

// Contrast lays out a Contrast result: the average prediction of each
// level, then each level against the base (the difference, in percentage
// points for a binomial model, and the ratio), by group; with a
// bootstrap, a table of its intervals. CSV is one long table (kind mean,
// difference or ratio), every interval at full precision.
func Contrast(r *analysis.ContrastResult) *Output {
	s := r.Spec
	m := r.Model
	fit, family, link := string(m.Fit), string(m.Family), string(m.Link)
	if fit == "" { // the logistic models of before families
		fit, family, link = string(m.Spec.Family), "binomial", "logit"
		if fit == "logit" {
			fit = "glm"
		}
	}
	binomial := family == string(stats.Binomial)
	scale, unit, dn := 1.0, "response", "diff"
	if binomial {
		scale, unit, dn = 100, "pp", "diff_pp"
	}
	diffCell := func(v float64) any {
		if binomial {
			return PP(scale * v)
		}
		return v
	}
	by := s.By
	res := contrastJSON{Fit: fit, Family: family, Link: link, Formula: m.Formula, N: m.N, Variable: s.Variable, Base: s.Base,
		By: append([]string{}, by...), RandomEffects: string(s.RandomEffects), Level: s.Level, Adjust: string(s.Adjust), DiffUnit: unit,
		Means: []contrastMeanJSON{}, Contrasts: []contrastRowJSON{}, Bootstrap: bootstrapOf(r.Bootstrap), Warnings: r.Warnings}
	lead := func(cols ...string) []string { return append(slices.Clone(by), cols...) }
	means := &Grid{Header: lead(s.Variable, "n", "mean", "se", "lo", "hi")}
	rows := &Grid{Header: lead(s.Variable, "base", dn, "se", "lo", "hi", "p", "p_adj", "ratio", "ratio_lo", "ratio_hi")}
	long := &Grid{Header: append(lead("kind", s.Variable, "base", "n", "estimate", "se", "lo", "hi", "p", "p_adj"), bootCSVHeader...)}
	var boots *Grid
	if r.Bootstrap != nil {
		boots = &Grid{Header: lead(s.Variable, "estimate", "boot_se", "boot_lo", "boot_hi")}
	}
	cells := func(levels []string) []any {
		out := make([]any, len(levels))
		for i, l := range levels {
			out[i] = l
		}
		return out
	}
	longRow := func(kind string, levels []string, level, base string, n int64, est, se, lo, hi float64, p, pAdj any, b *analysis.BootInterval, k float64) {
		row := append(cells(levels), kind, level, base, n, k*est, k*se, k*lo, k*hi, p, pAdj)
		long.Add(append(row, bootCSV(b, k)...)...)
	}
	bootRow := func(levels []string, label string, est float64, b *analysis.BootInterval, k float64, pp bool) {
		if boots == nil || b == nil {
			return
		}
		lo, hi := b.Bounds(r.Bootstrap.Interval)
		vals := []any{k * est, k * b.SE, k * lo, k * hi}
		if pp { // the SE stays unsigned
			vals[0], vals[2], vals[3] = PP(k*est), PP(k*lo), PP(k*hi)
		}
		boots.Add(append(append(cells(levels), label), vals...)...)
	}
	for _, x := range r.Means {
		obj, _ := groupRow(by, r.Kinds, x.By)
		res.Means = append(res.Means, contrastMeanJSON{obj, x.Level, x.N, jnum(x.Mean), jnum(x.SE), jnum(x.Lo), jnum(x.Hi), bootOf(x.Boot, 1)})
		means.Add(append(cells(x.By), x.Level, x.N, x.Mean, x.SE, x.Lo, x.Hi)...)
		longRow("mean", x.By, x.Level, "", x.N, x.Mean, x.SE, x.Lo, x.Hi, nil, nil, x.Boot, 1)
		bootRow(x.By, x.Level+" (mean)", x.Mean, x.Boot, 1, false)
	}
	for _, x := range r.Contrasts {
		obj, _ := groupRow(by, r.Kinds, x.By)
		res.Contrasts = append(res.Contrasts, contrastRowJSON{obj, x.Level, x.Base, x.N,
			jnum(scale * x.Diff), jnum(scale * x.DiffSE), jnum(scale * x.DiffLo), jnum(scale * x.DiffHi), jnum(x.DiffZ), jnum(x.DiffP), jnum(x.DiffPAdj),
			jnum(x.Ratio), jnum(x.RatioSE), jnum(x.RatioLo), jnum(x.RatioHi), jnum(x.RatioP), bootOf(x.DiffBoot, scale), bootOf(x.RatioBoot, 1)})
		rows.Add(append(cells(x.By), x.Level, x.Base, diffCell(x.Diff), scale*x.DiffSE, diffCell(x.DiffLo), diffCell(x.DiffHi),
			P(x.DiffP), P(x.DiffPAdj), x.Ratio, x.RatioLo, x.RatioHi)...)
		kind := "difference"
		if binomial {
			kind = "difference_pp"
		}
		longRow(kind, x.By, x.Level, x.Base, x.N, x.Diff, x.DiffSE, x.DiffLo, x.DiffHi, P(x.DiffP), P(x.DiffPAdj), x.DiffBoot, scale)
		longRow("ratio", x.By, x.Level, x.Base, x.N, x.Ratio, x.RatioSE, x.RatioLo, x.RatioHi, P(x.RatioP), nil, x.RatioBoot, 1)
		bootRow(x.By, x.Level+" − "+x.Base+" ("+unit+")", x.Diff, x.DiffBoot, scale, binomial)
		bootRow(x.By, x.Level+" / "+x.Base, x.Ratio, x.RatioBoot, 1, false)
	}
	what := "difference"
	if binomial {
		what = "difference in percentage points"
	}
	title := []string{fmt.Sprintf("%s %s (%s link): %s", fit, family, link, m.Formula),
		fmt.Sprintf("average contrasts of %s against %s over the %d rows fitted%s: %s and ratio, %s Wald intervals (delta method)%s, %s adjustment",
			s.Variable, s.Base, m.N, byText(by), what, levelPercent(s.Level), randomText(fit, s.RandomEffects), adjustText(s.Adjust))}
	tables := []*Grid{means, rows}
	if r.Bootstrap != nil {
		title = append(title, bootLine(r.Bootstrap))
		tables = append(tables, boots)
	}
	return &Output{Value: res, CSV: long, Title: title, Tables: tables, Warnings: warningTexts(r.Warnings)}
}

func byText(by []string) string {
	if len(by) == 0 {
		return ""
	}
	return " within each " + strings.Join(by, " × ")
}

// randomText says how a GLMM's predictions treat the random effects.
func randomText(fit string, r analysis.RandomEffects) string {
	switch {
	case fit != string(analysis.FitGLMM):
		return ""
	case r == analysis.RandomMarginal:
		return ", marginal over the random effects"
	}
	return ", random effects at 0"
}

func adjustText(a stats.Adjustment) string {
	if a == stats.AdjustNone {
		return "no"
	}
	return string(a)
}
