package plots

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/ledger"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// StackPanel is one world of Figure 6: per model (top to bottom) the share
// (%) of each first move, and the exact test of the model's first moves
// against the not-executed world's.
type StackPanel struct {
	Title  string
	Mode   string // fault mode of the world
	Models []string
	Shares [][]float64 // [model][behaviour], NaN when the model has no episodes
	P      []float64   // [model] the figure data's p, NaN when none (the not-executed world)
}

// StackData is Figure 6 as drawn.
type StackData struct {
	Behaviours []string
	Panels     []StackPanel
}

// Figure6Worlds are Figure 6's panels, in order: the not-executed and the
// committed worlds of the catalogue's timeout group (observation-equivalent
// at the response), each titled by its fate and mode.
var Figure6Worlds = func() (out []struct{ Mode, Title string }) {
	for _, m := range ledger.Faults() {
		if m.Group == ledger.GroupTimeout && (m.Fate == ledger.FateNotExecuted || m.Fate == ledger.FateCommitted) {
			out = append(out, struct{ Mode, Title string }{m.Name, m.Fate.String() + " (" + m.Name + ")"})
		}
	}
	return out
}()

// figure6P is the key of the figure data's column of p-values; every other
// column is a first move.
const figure6P = "p"

// Figure6Data reads Figure 6 off its table (rows keyed "MODE/MODEL" or
// "MODEL/MODE", columns first moves and p); worlds other than
// Figure6Worlds are not drawn.
func Figure6Data(t *paper.Table) (StackData, error) {
	var d StackData
	if t == nil || len(t.Rows) == 0 || len(t.Columns) == 0 {
		return d, errors.New("Figure 6: no E1 timeout episodes with a first move to draw")
	}
	pj := -1
	var moves []int
	for j, c := range t.Columns {
		if c.Key == figure6P {
			pj = j
			continue
		}
		moves = append(moves, j)
		d.Behaviours = append(d.Behaviours, strings.ReplaceAll(c.Label, "_", " "))
	}
	for _, w := range Figure6Worlds {
		p := StackPanel{Title: w.Title, Mode: w.Mode}
		for _, r := range t.Rows {
			mode, model, ok := splitWorldKey(r.Key)
			if !ok || mode != w.Mode {
				continue
			}
			sh := make([]float64, len(moves))
			for k, j := range moves {
				sh[k] = r.Cells[j].Value
			}
			pv := math.NaN()
			if pj >= 0 {
				pv = r.Cells[pj].Value
			}
			p.Models = append(p.Models, model)
			p.Shares = append(p.Shares, sh)
			p.P = append(p.P, pv)
		}
		if len(p.Models) > 0 {
			d.Panels = append(d.Panels, p)
		}
	}
	if len(d.Panels) == 0 {
		return d, errors.New("Figure 6: no timeout_pre or timeout_post rows to draw")
	}
	// Keep the behaviours that occur in the drawn worlds.
	var keep []int
	for j := range d.Behaviours {
		for _, p := range d.Panels {
			for _, sh := range p.Shares {
				if sh[j] > 0 && !slices.Contains(keep, j) {
					keep = append(keep, j)
				}
			}
		}
	}
	slices.Sort(keep)
	var bs []string
	for _, j := range keep {
		bs = append(bs, d.Behaviours[j])
	}
	d.Behaviours = bs
	for k := range d.Panels {
		for i, sh := range d.Panels[k].Shares {
			kept := make([]float64, len(keep))
			for n, j := range keep {
				kept[n] = sh[j]
			}
			d.Panels[k].Shares[i] = kept
		}
	}
	return d, nil
}

// splitWorldKey splits a row key into its fault mode and model, whichever
// comes first.
func splitWorldKey(k string) (mode, model string, ok bool) {
	if a, b, found := strings.Cut(k, "/"); found && ledger.FaultModes.Has(a) {
		return a, b, true
	}
	if i := strings.LastIndex(k, "/"); i >= 0 && ledger.FaultModes.Has(k[i+1:]) {
		return k[i+1:], k[:i], true
	}
	return "", "", false
}

// hbars is a gonum plotter of horizontal stacked bars: row i at y = n−1−i.
type hbars struct {
	shares [][]float64
	height float64 // in y data units
}

func (h hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 100, -0.5, float64(len(h.shares)) - 0.5
}

func (h hbars) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	n := len(h.shares)
	for i, row := range h.shares {
		y := float64(n - 1 - i)
		x := 0.0
		for j, v := range row {
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			c.FillPolygon(colour(j), rect(tx(x), ty(y-h.height/2), tx(x+v), ty(y+h.height/2)))
			x += v
		}
	}
}

func figure6(d StackData) figure {
	sec := legendSection{title: "first move after the timeout"}
	for j, b := range d.Behaviours {
		sec.entries = append(sec.entries, legendEntry{text: b, thumb: boxThumb(colour(j))})
	}
	secs := []legendSection{sec}
	lw := legendWidth(secs)
	nm := 0
	for _, p := range d.Panels {
		nm = max(nm, len(p.Models))
	}
	hgt := max(vg.Length(nm)*0.2*vg.Inch+0.75*vg.Inch, 1.8*vg.Inch)
	return figure{name: "figure6", w: pageWidth, h: hgt, draw: func(c draw.Canvas) {
		left, right := splitRight(c, lw+8)
		var ps []*plot.Plot
		for k, panel := range d.Panels {
			p := newPlot(panel.Title, "share of episodes (%)", "")
			p.Add(hbars{shares: panel.Shares, height: 0.7})
			p.X.Min, p.X.Max = 0, 100
			p.X.Tick.Marker = percentTicks{}
			p.Y.Min, p.Y.Max = -0.5, float64(len(panel.Models))-0.5
			var yt []plot.Tick
			for i, m := range panel.Models {
				label := m
				if k > 0 {
					// The left panel names the models; the others give the
					// exact test against the not-executed world.
					label = pLabel(panel.P[i])
				}
				yt = append(yt, plot.Tick{Value: float64(len(panel.Models) - 1 - i), Label: label})
			}
			p.Y.Tick.Marker = plot.ConstantTicks(yt)
			p.Y.Tick.Length = 0
			p.Y.LineStyle.Width = 0
			ps = append(ps, p)
		}
		if len(ps) == 0 {
			return
		}
		tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: 8}
		cs := plot.Align([][]*plot.Plot{ps}, tiles, left)
		for k, p := range ps {
			p.Draw(cs[0][k])
		}
		drawLegend(draw.Crop(right, 8, 0, 0, -14), secs)
	}}
}

// pLabel writes a Figure 6 p-value for a reader ("p = 0.85", "p < 0.001"),
// "" when there is none.
func pLabel(p float64) string {
	switch {
	case math.IsNaN(p):
		return ""
	case p < 0.001:
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'f', 2, 64)
}
