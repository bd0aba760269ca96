package plots

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bubble is one (condition, model) of Figure 5, as in Table 7's cells.
type Bubble struct {
	Condition, Model string
	Calls            float64 // mean tool calls per faulted episode
	EOS              float64 // %
	Dup              float64 // duplicate rate, %
}

// BubbleData is Figure 5 as drawn.
type BubbleData struct {
	Conditions []string // colour order
	Models     []string // shape order
	Bubbles    []Bubble
}

// Figure5Data reads Figure 5 off Table 7 (rows "eos/MODEL", "dup/MODEL",
// "calls/MODEL"; columns conditions). Points with an undefined coordinate
// are left out.
func Figure5Data(t *paper.Table) (BubbleData, error) {
	var d BubbleData
	if t == nil {
		return d, errors.New("Figure 5: no Table 7 (the ledger lacks its columns)")
	}
	for _, r := range t.Rows {
		if m, ok := strings.CutPrefix(r.Key, "eos/"); ok {
			d.Models = append(d.Models, m)
		}
	}
	for _, c := range t.Columns {
		d.Conditions = append(d.Conditions, c.Key)
		for _, m := range d.Models {
			e, _ := t.Cell("eos/"+m, c.Key)
			du, _ := t.Cell("dup/"+m, c.Key)
			ca, _ := t.Cell("calls/"+m, c.Key)
			if math.IsNaN(e.Value) || math.IsNaN(ca.Value) || math.IsNaN(du.Value) {
				continue
			}
			d.Bubbles = append(d.Bubbles, Bubble{Condition: c.Key, Model: m, Calls: ca.Value, EOS: e.Value, Dup: du.Value})
		}
	}
	if len(d.Bubbles) == 0 {
		return d, errors.New("Figure 5: Table 7 has no defined cells (no faulted E2 episodes)")
	}
	return d, nil
}

// bubbleMax is the glyph radius of a 100% duplicate rate; area ∝ rate.
const bubbleMax = vg.Length(9)

// bubbleRadius is the radius whose disc area is proportional to dup (%),
// with a floor so a 0% point stays visible (drawn as a ring).
func bubbleRadius(dup float64) vg.Length {
	return vg.Length(math.Max(math.Sqrt(math.Max(dup, 0)/100)*float64(bubbleMax), 1.2))
}

// bubbleStyle is the marker of a condition (colour) and model (shape) with
// area proportional to the duplicate rate.
func bubbleStyle(col int, dup float64, sh draw.GlyphDrawer) draw.GlyphStyle {
	return draw.GlyphStyle{Color: colour(col), Shape: sh, Radius: bubbleRadius(dup)}
}

func figure5(d BubbleData) figure {
	ci := map[string]int{}
	for i, c := range d.Conditions {
		ci[c] = i
	}
	mi := map[string]int{}
	for i, m := range d.Models {
		mi[m] = i
	}
	// Shapes per model: outline shapes keep overlapping bubbles readable.
	modelShapes := []draw.GlyphDrawer{outline{0}, outline{4}, outline{3}, outline{6}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	mshape := func(i int) draw.GlyphDrawer { return modelShapes[i%len(modelShapes)] }
	cond := legendSection{title: "condition (colour)"}
	for i, c := range d.Conditions {
		cond.entries = append(cond.entries, legendEntry{text: strings.ReplaceAll(c, "-oracle", " oracle"), thumb: boxThumb(colour(i))})
	}
	mod := legendSection{title: "model (shape)"}
	for i, m := range d.Models {
		mod.entries = append(mod.entries, legendEntry{text: m, thumb: glyphThumb(draw.GlyphStyle{Color: rgb(0x40, 0x40, 0x40), Shape: mshape(i), Radius: 2.4})})
	}
	size := legendSection{title: "duplicate rate (area)"}
	for _, v := range []float64{0, 10, 40, 80} {
		r := bubbleRadius(v)
		size.entries = append(size.entries, legendEntry{fmt.Sprintf("%.0f%%", v), bigGlyphThumb(draw.GlyphStyle{Color: rgb(0x40, 0x40, 0x40), Shape: outline{0}, Radius: r}), 2*r + 2})
	}
	secsL := []legendSection{cond}
	secsR := []legendSection{mod, size}
	lw := legendWidth(secsL) + legendWidth(secsR) + 10
	return figure{name: "figure5", w: pageWidth, h: 3.0 * vg.Inch, draw: func(c draw.Canvas) {
		left, right := splitRight(c, lw+8)
		p := newPlot("", "tool calls per faulted episode (mean)", "exactly-once success (%)")
		g := plotter.NewGrid()
		g.Vertical.Color, g.Horizontal.Color = lightGrey, lightGrey
		g.Vertical.Width, g.Horizontal.Width = 0.4, 0.4
		p.Add(g)
		// Large bubbles first so small ones stay on top.
		order := make([]int, len(d.Bubbles))
		for i := range order {
			order[i] = i
		}
		sortStable(order, func(a, b int) bool { return d.Bubbles[a].Dup > d.Bubbles[b].Dup })
		for _, i := range order {
			b := d.Bubbles[i]
			sc, err := plotter.NewScatter(plotter.XYs{{X: b.Calls, Y: b.EOS}})
			if err != nil {
				continue
			}
			sc.GlyphStyle = bubbleStyle(ci[b.Condition], b.Dup, mshape(mi[b.Model]))
			p.Add(sc)
		}
		p.Y.Min, p.Y.Max = 0, 100
		p.Y.Tick.Marker = percentTicks{}
		xmin, xmax := p.X.Min, p.X.Max
		pad := math.Max((xmax-xmin)*0.08, 0.5)
		p.X.Min, p.X.Max = math.Max(0, xmin-pad), xmax+pad
		p.X.Tick.Marker = niceTicks{6}
		p.Draw(left)
		lc := draw.Crop(right, 8, 0, 0, -4)
		drawLegend(lc, secsL)
		drawLegend(draw.Crop(lc, legendWidth(secsL)+10, 0, 0, 0), secsR)
	}}
}

// bigGlyphThumb draws a glyph that may be larger than the thumbnail,
// centred on it.
func bigGlyphThumb(g draw.GlyphStyle) func(*draw.Canvas, vg.Point, vg.Length) {
	return func(c *draw.Canvas, at vg.Point, size vg.Length) {
		d := max(size, 2*g.Radius+2)
		c.DrawGlyphNoClip(g, vg.Point{X: at.X + d/2, Y: at.Y + size/2})
	}
}

// sortStable is an insertion sort (few points; stable, deterministic).
func sortStable(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}
