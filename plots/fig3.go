package plots

import (
	"errors"
	"math"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/ledger"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// IntervalData is Figure 3 as drawn: for each category (contract class)
// and series (model) a rate with its 95% interval, in percent.
type IntervalData struct {
	Categories []string
	Series     []string
	// Cells[s][k] is series s at category k.
	Cells [][]paper.Cell
}

// Figure3Data reads Figure 3 off its table: contract classes (write_class
// values) along one side, models along the other, in either orientation.
func Figure3Data(t *paper.Table) (IntervalData, error) {
	if t == nil || len(t.Rows) == 0 || len(t.Columns) == 0 {
		return IntervalData{}, errors.New("Figure 3: no committed-fault E1 episodes to draw")
	}
	var d IntervalData
	classCols := ledger.WriteClasses.Has(t.Columns[0].Key)
	if classCols {
		for _, c := range t.Columns {
			d.Categories = append(d.Categories, c.Label)
		}
		for _, r := range t.Rows {
			d.Series = append(d.Series, r.Labels[len(r.Labels)-1])
			d.Cells = append(d.Cells, r.Cells)
		}
		return d, nil
	}
	for _, r := range t.Rows {
		d.Categories = append(d.Categories, r.Labels[len(r.Labels)-1])
	}
	for j, c := range t.Columns {
		d.Series = append(d.Series, c.Label)
		cells := make([]paper.Cell, len(t.Rows))
		for k, r := range t.Rows {
			cells[k] = r.Cells[j]
		}
		d.Cells = append(d.Cells, cells)
	}
	return d, nil
}

// errPoints pairs points with asymmetric Y errors for gonum's error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// figure3 draws dodged points with Wilson intervals, one colour and shape
// per model, classes along x, the model legend at the right.
func figure3(d IntervalData) figure {
	var secs []legendSection
	sec := legendSection{title: "model"}
	for s, name := range d.Series {
		sec.entries = append(sec.entries, legendEntry{text: name, thumb: glyphThumb(draw.GlyphStyle{Color: colour(s), Shape: shape(s), Radius: 2.2})})
	}
	secs = append(secs, sec)
	lw := legendWidth(secs)
	return figure{name: "figure3", w: pageWidth, h: 2.4 * vg.Inch, draw: func(c draw.Canvas) {
		left, right := splitRight(c, lw+6)
		p := newPlot("", "contract class of the focal write", "duplicate rate (%)")
		g := plotter.NewGrid()
		g.Vertical.Width = 0
		g.Horizontal.Color = lightGrey
		g.Horizontal.Width = 0.4
		p.Add(g)
		ns := len(d.Series)
		width := 0.8
		for s := range d.Series {
			var pts plotter.XYs
			var errs plotter.YErrors
			for k, cell := range d.Cells[s] {
				if math.IsNaN(cell.Value) {
					continue
				}
				x := float64(k) - width/2 + width*(float64(s)+0.5)/float64(ns)
				pts = append(pts, plotter.XY{X: x, Y: cell.Value})
				lo, hi := cell.Value-cell.Lo, cell.Hi-cell.Value
				if math.IsNaN(lo) || math.IsNaN(hi) {
					lo, hi = 0, 0
				}
				errs = append(errs, struct{ Low, High float64 }{lo, hi})
			}
			if len(pts) == 0 {
				continue
			}
			eb, err := plotter.NewYErrorBars(errPoints{pts, errs})
			if err == nil {
				eb.LineStyle.Color = colour(s)
				eb.LineStyle.Width = 0.6
				eb.CapWidth = 2
				p.Add(eb)
			}
			sc, err := plotter.NewScatter(pts)
			if err == nil {
				sc.GlyphStyle = draw.GlyphStyle{Color: colour(s), Shape: shape(s), Radius: 2.2}
				p.Add(sc)
			}
		}
		var xt []plot.Tick
		for k, name := range d.Categories {
			xt = append(xt, plot.Tick{Value: float64(k), Label: name})
		}
		p.X.Tick.Marker = plot.ConstantTicks(xt)
		p.X.Min, p.X.Max = -0.5, float64(len(d.Categories))-0.5
		p.X.Tick.Length = 0
		p.Y.Min, p.Y.Max = 0, 100
		p.Y.Tick.Marker = percentTicks{}
		p.Draw(left)
		drawLegend(draw.Crop(right, 6, 0, 0, -4), secs)
	}}
}
