package plots

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TradePoint is one condition of Figure 4: mean agent-visible time
// (minutes) and EOS (%), as in Table 6.
type TradePoint struct {
	Key   string // Table 6 row key: "wait-300", "keys", "vanilla"
	Label string // "300 s"
	Time  float64
	EOS   float64
}

// TradeOff is one panel of Figure 4: the wait-Δ policies in increasing Δ
// (a line) and the reference conditions (vanilla, keys everywhere).
type TradeOff struct {
	Title string
	Waits []TradePoint
	Refs  []TradePoint
}

// Figure4Data reads the two panels (fixed 90 s delay, heavy-tailed delay)
// off Table 6's cells; rows whose EOS or time is undefined are left out.
func Figure4Data(t *paper.Table) ([2]TradeOff, error) {
	var out [2]TradeOff
	if t == nil {
		return out, errors.New("Figure 4: no Table 6 (the ledger lacks its columns)")
	}
	panels := []struct{ title, eos, time string }{
		{"fixed delay (90 s)", "fixed_eos", "fixed_time"},
		{"heavy-tailed delay (40 s–2 h)", "tail_eos", "tail_time"},
	}
	n := 0
	for k, p := range panels {
		out[k].Title = p.title
		for _, r := range t.Rows {
			e, ok1 := t.Cell(r.Key, p.eos)
			tm, ok2 := t.Cell(r.Key, p.time)
			if !ok1 || !ok2 || math.IsNaN(e.Value) || math.IsNaN(tm.Value) {
				continue
			}
			pt := TradePoint{Key: r.Key, Label: r.Labels[len(r.Labels)-1], Time: tm.Value, EOS: e.Value}
			switch {
			case strings.HasPrefix(r.Key, "wait-"):
				pt.Label = waitLabel(strings.TrimPrefix(r.Key, "wait-"))
				out[k].Waits = append(out[k].Waits, pt)
			case r.Key == "vanilla" || r.Key == "keys":
				out[k].Refs = append(out[k].Refs, pt)
			default:
				continue
			}
			n++
		}
	}
	if n == 0 {
		return out, errors.New("Figure 4: Table 6 has no defined EOS and time cells (no late-commit episodes)")
	}
	return out, nil
}

// waitLabel prints Δ seconds, in hours from one hour up.
func waitLabel(s string) string {
	var v float64
	if _, err := fmt.Sscanf(s, "%g", &v); err == nil && v >= 3600 && math.Mod(v, 3600) == 0 {
		return fmt.Sprintf("%g h", v/3600)
	}
	return s + " s"
}

// refStyle is the glyph of a reference condition.
func refStyle(key string) (draw.GlyphStyle, string) {
	if key == "keys" {
		return draw.GlyphStyle{Color: colour(2), Shape: draw.SquareGlyph{}, Radius: 2.6}, "keys everywhere"
	}
	return draw.GlyphStyle{Color: colour(4), Shape: draw.TriangleGlyph{}, Radius: 2.6}, "vanilla (no wait)"
}

// figure4 draws the two panels side by side with a shared legend.
func figure4(d [2]TradeOff) figure {
	waitStyle := draw.GlyphStyle{Color: colour(3), Shape: draw.CircleGlyph{}, Radius: 2.2}
	secs := []legendSection{{entries: []legendEntry{{text: "wait, then verify", thumb: glyphThumb(waitStyle)}}}}
	for _, k := range []string{"vanilla", "keys"} {
		// Only conditions the ledger has: a legend entry without a point
		// would suggest one is hidden.
		if !slices.ContainsFunc(append(slices.Clone(d[0].Refs), d[1].Refs...), func(r TradePoint) bool { return r.Key == k }) {
			continue
		}
		g, l := refStyle(k)
		secs[0].entries = append(secs[0].entries, legendEntry{text: l, thumb: glyphThumb(g)})
	}
	lw := legendWidth(secs)
	return figure{name: "figure4", w: pageWidth, h: 2.3 * vg.Inch, draw: func(c draw.Canvas) {
		left, right := splitRight(c, lw+8)
		// Both panels share the EOS axis and fit their own time range.
		tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: 10}
		var ps [2]*plot.Plot
		for k, panel := range d {
			// One x label under both panels (gonum places a log axis's own
			// label box off-centre, which wastes the panel's right side).
			p := newPlot(panel.Title, "", "exactly-once success (%)")
			if k == 1 {
				p.Y.Label.Text = ""
			}
			g := plotter.NewGrid()
			g.Vertical.Color, g.Horizontal.Color = lightGrey, lightGrey
			g.Vertical.Width, g.Horizontal.Width = 0.4, 0.4
			p.Add(g)
			var xy plotter.XYs
			var lab []string
			for _, w := range panel.Waits {
				xy = append(xy, plotter.XY{X: w.Time, Y: w.EOS})
				lab = append(lab, w.Label)
			}
			if len(xy) > 0 {
				ln, sc, err := plotter.NewLinePoints(xy)
				if err == nil {
					ln.Color, ln.Width = colour(3), 0.8
					sc.GlyphStyle = waitStyle
					p.Add(ln, sc)
				}
			}
			for _, r := range panel.Refs {
				sc, err := plotter.NewScatter(plotter.XYs{{X: r.Time, Y: r.EOS}})
				if err == nil {
					sc.GlyphStyle, _ = refStyle(r.Key)
					p.Add(sc)
				}
			}
			var lx, ly []float64
			for _, w := range panel.Waits {
				lx, ly = append(lx, w.Time), append(ly, w.EOS)
			}
			// Refs take part so labels keep clear of them.
			var pl pointLabels
			pl.xs, pl.ys, pl.labels, pl.radius = lx, ly, lab, 2.6
			for _, r := range panel.Refs {
				pl.avoidX, pl.avoidY = append(pl.avoidX, r.Time), append(pl.avoidY, r.EOS)
			}
			p.Add(pl)
			p.Y.Min, p.Y.Max = 0, 100
			p.Y.Tick.Marker = percentTicks{}
			if lo, hi := p.X.Min, p.X.Max; lo > 0 && hi/lo > 8 {
				// Hour-long waits squeeze the short ones: log time axis.
				p.X.Scale = plot.LogScale{}
				p.X.Min, p.X.Max = floor125(lo/1.1), hi*1.5
				p.X.Tick.Marker = logTicks{}
			} else {
				p.X.Min = 0
				p.X.Max = math.Max(p.X.Max*1.12, 1)
				p.X.Tick.Marker = niceTicks{5}
			}
			ps[k] = p
		}
		ls := textStyle(labelSize)
		ls.XAlign = draw.XCenter
		lh := ls.FontExtents().Height + 2
		panels := draw.Crop(left, 0, 0, lh, 0)
		ps[0].Draw(tiles.At(panels, 0, 0))
		ps[1].Draw(tiles.At(panels, 1, 0))
		xl := "mean agent-visible time per episode (min)"
		isLog := func(p *plot.Plot) bool { _, ok := p.X.Scale.(plot.LogScale); return ok }
		switch l0, l1 := isLog(ps[0]), isLog(ps[1]); {
		case l0 && l1:
			xl += ", log scale"
		case l0:
			xl += "; left panel: log scale"
		case l1:
			xl += "; right panel: log scale"
		}
		left.FillText(ls, vg.Point{X: (left.Min.X + left.Max.X) / 2, Y: left.Min.Y + ls.FontExtents().Descent}, xl)
		drawLegend(draw.Crop(right, 8, 0, 0, -14), secs)
	}}
}

// floor125 is the largest 1–2–5 value not above v (v > 0), so that a log
// axis starts on a labelled tick.
func floor125(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*e <= v {
			return m * e
		}
	}
	return e
}
