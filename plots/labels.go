package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabels is a gonum plotter writing a label beside each point at the
// first of a few candidate positions where it overlaps neither an earlier
// label nor any point; points closer than a glyph share one label.
type pointLabels struct {
	xs, ys []float64
	labels []string
	radius vg.Length // glyph radius to keep clear of
	// avoidX, avoidY are other points (unlabelled) to keep clear of.
	avoidX, avoidY []float64
}

type box struct{ x0, y0, x1, y1 vg.Length }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

func (p pointLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	ts := textStyle(tickSize)
	h := ts.FontExtents().Height
	n := len(p.xs)
	pts := make([]vg.Point, n)
	var taken []box
	for i := range pts {
		pts[i] = vg.Point{X: tx(p.xs[i]), Y: ty(p.ys[i])}
		r := p.radius + 0.5
		taken = append(taken, box{pts[i].X - r, pts[i].Y - r, pts[i].X + r, pts[i].Y + r})
	}
	for i := range p.avoidX {
		x, y, r := tx(p.avoidX[i]), ty(p.avoidY[i]), p.radius+0.5
		taken = append(taken, box{x - r, y - r, x + r, y + r})
	}
	// Merge the labels of points that (nearly) coincide.
	used := make([]bool, n)
	for i := 0; i < n; i++ {
		if used[i] {
			continue
		}
		label := p.labels[i]
		for j := i + 1; j < n; j++ {
			if !used[j] && absL(pts[j].X-pts[i].X) < 2*p.radius && absL(pts[j].Y-pts[i].Y) < 2*p.radius {
				label += ", " + p.labels[j]
				used[j] = true
			}
		}
		w := ts.Width(label)
		g := p.radius + 1.5
		at := pts[i]
		cands := []vg.Point{
			{X: at.X + g, Y: at.Y - g - h}, // right, below
			{X: at.X + g, Y: at.Y + g},     // right, above
			{X: at.X - g - w, Y: at.Y - g - h},
			{X: at.X - g - w, Y: at.Y + g},
			{X: at.X - w/2, Y: at.Y - g - 2*h},
			{X: at.X - w/2, Y: at.Y + g + h},
		}
		best := cands[0]
		for _, cand := range cands {
			b := box{cand.X - 2, cand.Y, cand.X + w + 2, cand.Y + h}
			if b.x0 < c.Min.X || b.x1 > c.Max.X || b.y0 < c.Min.Y || b.y1 > c.Max.Y {
				continue
			}
			free := true
			for _, t := range taken {
				if b.overlaps(t) {
					free = false
					break
				}
			}
			if free {
				best = cand
				break
			}
		}
		taken = append(taken, box{best.X, best.Y, best.X + w, best.Y + h})
		c.FillText(ts, vg.Point{X: best.X, Y: best.Y + h*0.2}, label)
	}
}

func absL(v vg.Length) vg.Length {
	if v < 0 {
		return -v
	}
	return v
}
