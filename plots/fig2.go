package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/ledger"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatMap is the data of Figure 2 as drawn: Values[i][j] is the rate (%)
// of row i (top to bottom) and column j (left to right); NaN cells are
// blank.
type HeatMap struct {
	Rows    []string
	Columns []string // short labels
	Keys    []string // the table's column keys (fault modes)
	Groups  []string // Table 2 group of each column
	Values  [][]float64
}

// Figure2Data reads Figure 2's heat map off its table (rows models,
// columns fault modes), columns in Table 2's grouping as the catalogue
// gives it (ledger.FaultGroups, each mode under its group's figure
// heading with its short label); modes outside the catalogue follow in
// the table's order.
func Figure2Data(t *paper.Table) (HeatMap, error) {
	if t == nil || len(t.Rows) == 0 || len(t.Columns) == 0 {
		return HeatMap{}, errors.New("Figure 2: no E1 duplicate rates to draw")
	}
	var h HeatMap
	var order []int
	done := map[int]bool{}
	modes := ledger.Faults()
	for _, g := range ledger.FaultGroups() {
		for _, m := range modes {
			if m.Group != g.Name {
				continue
			}
			for j, c := range t.Columns {
				if c.Key == m.Name && !done[j] {
					order = append(order, j)
					done[j] = true
					h.Groups = append(h.Groups, g.Figure)
				}
			}
		}
	}
	for j, c := range t.Columns {
		if !done[j] {
			order = append(order, j)
			h.Groups = append(h.Groups, "")
		}
		_ = c
	}
	for _, j := range order {
		c := t.Columns[j]
		l := c.Label
		if m, ok := ledger.FaultByName(c.Key); ok {
			l = m.Short
		}
		h.Columns = append(h.Columns, l)
		h.Keys = append(h.Keys, c.Key)
	}
	for _, r := range t.Rows {
		h.Rows = append(h.Rows, r.Labels[len(r.Labels)-1])
		v := make([]float64, len(order))
		for k, j := range order {
			v[k] = r.Cells[j].Value
		}
		h.Values = append(h.Values, v)
	}
	return h, nil
}

// shortGroup names a group heading wider than its columns (the
// catalogue's FigureShort), "" when it has none.
func shortGroup(heading string) string {
	for _, g := range ledger.FaultGroups() {
		if g.Figure == heading {
			return g.FigureShort
		}
	}
	return ""
}

// heatColour maps 0–100 % onto a single-hue ramp from white to Okabe–Ito
// blue (monotone in lightness, so safe for every colour vision).
func heatColour(v float64) color.Color {
	f := math.Max(0, math.Min(1, v/100))
	lerp := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + f*(float64(b)-float64(a)))) }
	return color.NRGBA{R: lerp(0xF7, 0x00), G: lerp(0xFB, 0x45), B: lerp(0xFF, 0x8C), A: 0xFF}
}

// heatCells is a gonum plotter drawing the cells, their values and the
// group headings (in an extra band above the last row).
type heatCells struct{ h HeatMap }

func (p heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(p.h.Columns)) - 0.5, -0.5, float64(len(p.h.Rows)) + 0.4
}

func (p heatCells) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	nr := len(p.h.Rows)
	ts := textStyle(tickSize)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
	grey := color.Gray{Y: 0xDD}
	for i, row := range p.h.Values {
		y := float64(nr - 1 - i)
		for j, v := range row {
			x := float64(j)
			x0, x1 := tx(x-0.5), tx(x+0.5)
			y0, y1 := ty(y-0.5), ty(y+0.5)
			if math.IsNaN(v) {
				c.FillPolygon(grey, rect(x0, y0, x1, y1))
				ts.Color = color.Black
				c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, "–")
				continue
			}
			c.FillPolygon(heatColour(v), rect(x0, y0, x1, y1))
			ts.Color = color.Black
			if v > 55 {
				ts.Color = color.White
			}
			c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, fmt.Sprintf("%.0f", v))
		}
	}
	// Group headings with a rule under each, and white gaps between groups.
	ts.Color = color.Black
	line := draw.LineStyle{Color: color.Black, Width: 0.5}
	gap := draw.LineStyle{Color: color.White, Width: 1.5}
	for j := 0; j < len(p.h.Groups); {
		k := j
		for k+1 < len(p.h.Groups) && p.h.Groups[k+1] == p.h.Groups[j] {
			k++
		}
		x0, x1 := tx(float64(j)-0.5), tx(float64(k)+0.5)
		yr := ty(float64(nr) - 0.4)
		c.StrokeLine2(line, x0+1.5, yr, x1-1.5, yr)
		label := p.h.Groups[j]
		if short := shortGroup(label); ts.Width(label) > x1-x0-2 && short != "" {
			label = short
		}
		c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: ty(float64(nr) - 0.05)}, label)
		if j > 0 {
			c.StrokeLine2(gap, x0, ty(-0.5), x0, ty(float64(nr)-0.5))
		}
		j = k + 1
	}
}

// heatPlot is a plot of the heat map h: a cell per row and column, the
// columns' labels under it and the rows' on its left, without axis lines
// (Figure 2 and the replay figure's panels).
func heatPlot(title, xLabel string, h HeatMap) *plot.Plot {
	nr := len(h.Rows)
	p := newPlot(title, xLabel, "")
	p.Add(heatCells{h})
	p.X.Min, p.X.Max = -0.5, float64(len(h.Columns))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(nr)+0.4
	var xt, yt []plot.Tick
	for j, l := range h.Columns {
		xt = append(xt, plot.Tick{Value: float64(j), Label: l})
	}
	for i, l := range h.Rows {
		yt = append(yt, plot.Tick{Value: float64(nr - 1 - i), Label: l})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.LineStyle.Width, p.Y.LineStyle.Width = 0, 0
	p.X.Tick.Length, p.Y.Tick.Length = 0, 0
	p.X.Padding, p.Y.Padding = 0, 0
	return p
}

// figure2 is the heat map at column width.
func figure2(h HeatMap) figure {
	nr := len(h.Rows)
	hgt := vg.Length(nr)*0.24*vg.Inch + 0.9*vg.Inch
	// A column figure holds the paper's seven modes; more go page-wide so
	// that the column labels keep clear of each other.
	w := columnWidth
	if len(h.Columns) > 8 {
		w = pageWidth
	}
	return figure{name: "figure2", w: w, h: hgt, draw: func(c draw.Canvas) {
		p := heatPlot("", "fault mode", h)
		p.Title.Text = "Duplicate rate (%)"
		p.Draw(c)
	}}
}
