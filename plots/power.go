package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/limbo-toolkit/limbo/analysis/power"
	"github.com/limbo-toolkit/limbo/outfile"
)

// PowerCurve is one hypothesis's power over a grid of sizes, as shares in
// [0, 1] with their Monte Carlo interval.
type PowerCurve struct {
	ID            string
	Sizes         []float64
	Power, Lo, Hi []float64
}

// PowerData is the power-curve figure as drawn.
type PowerData struct {
	XLabel string  // what the sizes multiply
	Target float64 // drawn as a dashed line; NaN for none
	Curves []PowerCurve
}

// RenderPower renders the power curves of r as dir/power.png and
// dir/power.svg into the unit u, which the caller commits with its other
// outputs, and returns the paths.
func RenderPower(u *outfile.Unit, r *power.Result, dir string) ([]string, error) {
	fig, err := PowerFigure(PowerDataOf(r))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, format := range []string{"png", "svg"} {
		name := filepath.Join(dir, "power."+format)
		if err := u.Write(name, func(w io.Writer) error { return fig.Write(w, format) }); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// PowerDataOf reads the curves off a power result.
func PowerDataOf(r *power.Result) PowerData {
	d := PowerData{XLabel: "size (× " + r.Scale + ")", Target: r.Target}
	for _, h := range r.Hypotheses {
		c := PowerCurve{ID: h.ID}
		for _, p := range h.Points {
			c.Sizes = append(c.Sizes, p.Factor)
			c.Power, c.Lo, c.Hi = append(c.Power, p.Power), append(c.Lo, p.Lo), append(c.Hi, p.Hi)
		}
		d.Curves = append(d.Curves, c)
	}
	return d
}

// PowerFigure draws power curves, one per hypothesis, with error bars for
// the Monte Carlo interval and the target as a dashed line: file stem
// "power". It computes nothing: the numbers are analysis/power's.
func PowerFigure(d PowerData) (*Figure, error) {
	if len(d.Curves) == 0 {
		return nil, errors.New("power figure: no curves")
	}
	for _, c := range d.Curves {
		n := len(c.Sizes)
		if n == 0 || len(c.Power) != n || len(c.Lo) != n || len(c.Hi) != n {
			return nil, fmt.Errorf("power figure: curve %s: sizes, power and interval lengths differ", c.ID)
		}
	}
	leg := legendSection{title: "hypothesis"}
	for i, c := range d.Curves {
		leg.entries = append(leg.entries, legendEntry{text: c.ID, thumb: glyphThumb(draw.GlyphStyle{Color: colour(i), Shape: shape(i), Radius: 2.2})})
	}
	secs := []legendSection{leg}
	lw := legendWidth(secs)
	f := figure{name: "power", w: pageWidth * 0.62, h: 2.6 * vg.Inch, draw: func(c draw.Canvas) {
		left, right := splitRight(c, lw+8)
		p := newPlot("", d.XLabel, "power (%)")
		g := plotter.NewGrid()
		g.Vertical.Color, g.Horizontal.Color = lightGrey, lightGrey
		g.Vertical.Width, g.Horizontal.Width = 0.4, 0.4
		p.Add(g)
		xmin, xmax := math.Inf(1), math.Inf(-1)
		// A small horizontal dodge keeps overlapping intervals apart.
		span := 0.0
		for _, cv := range d.Curves {
			for _, s := range cv.Sizes {
				xmin, xmax = math.Min(xmin, s), math.Max(xmax, s)
			}
		}
		span = xmax - xmin
		if span == 0 {
			span = math.Max(xmax, 1)
		}
		dodge := span * 0.006
		for i, cv := range d.Curves {
			off := (float64(i) - float64(len(d.Curves)-1)/2) * dodge
			var pts plotter.XYs
			var errs plotter.YErrors
			for k, s := range cv.Sizes {
				if math.IsNaN(cv.Power[k]) {
					continue
				}
				pts = append(pts, plotter.XY{X: s + off, Y: 100 * cv.Power[k]})
				errs = append(errs, struct{ Low, High float64 }{100 * (cv.Power[k] - cv.Lo[k]), 100 * (cv.Hi[k] - cv.Power[k])})
			}
			if len(pts) == 0 {
				continue
			}
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				continue
			}
			l.Color, l.Width = colour(i), 0.9
			sc.GlyphStyle = draw.GlyphStyle{Color: colour(i), Shape: shape(i), Radius: 2.2}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, errs})
			if err == nil {
				eb.Color, eb.Width, eb.CapWidth = colour(i), 0.6, 3
				p.Add(eb)
			}
			p.Add(l, sc)
		}
		if !math.IsNaN(d.Target) {
			t, err := plotter.NewLine(plotter.XYs{{X: xmin - span*0.05, Y: 100 * d.Target}, {X: xmax + span*0.05, Y: 100 * d.Target}})
			if err == nil {
				t.Color, t.Width, t.Dashes = color.Gray{Y: 0x60}, 0.7, []vg.Length{3, 2}
				p.Add(t)
			}
		}
		p.Y.Min, p.Y.Max = 0, 100
		p.Y.Tick.Marker = percentTicks{}
		p.X.Min, p.X.Max = xmin-span*0.05, xmax+span*0.05
		p.X.Tick.Marker = niceTicks{6}
		p.Draw(left)
		drawLegend(draw.Crop(right, 8, 0, 0, -4), secs)
	}}
	return &Figure{Name: f.name, Width: f.w, Height: f.h, f: f}, nil
}
