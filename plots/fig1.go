package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Lanes of a timeline (y data coordinates).
const (
	agentLane  = 1.0
	ledgerLane = 0.0
)

// timeline draws one trace: calls as bars from send to answer on the agent
// lane, committed effects as markers on the ledger lane, each labelled,
// labels stacked in levels so that none overlaps another.
type timeline struct{ tr sandbox.Figure1Trace }

func (t timeline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, t.end(), -0.6, 1.7
}

// end is the time axis maximum: past the last call and effect.
func (t timeline) end() float64 {
	m := 0.0
	for _, c := range t.tr.Calls {
		m = math.Max(m, c.TS+c.LatencyS)
	}
	for _, e := range t.tr.Effects {
		m = math.Max(m, e.CommittedAtS)
	}
	return math.Ceil((m+15)/30) * 30
}

// callLabel names a call of the script for a reader.
func (t timeline) callLabel(i int) (string, color.Color) {
	c := t.tr.Calls[i]
	switch {
	case c.Tool == sandbox.ToolWait:
		return "wait", rgb(0xA0, 0xA0, 0xA0)
	case c.Role == sandbox.RoleFocal:
		return "charge: " + c.Outcome, colour(4)
	case c.Role == sandbox.RoleReissue:
		return "re-issue: " + outcomeText(c.Outcome), colour(3)
	default:
		found := i+1 >= len(t.tr.Calls) // no re-issue followed: the read found it
		if found {
			return "read-back: found", colour(1)
		}
		return "read-back: empty", colour(1)
	}
}

func outcomeText(o string) string {
	switch o {
	case ledger.OutcomeOK:
		return "ok"
	case ledger.OutcomeHTTP409:
		return "409 (key in flight)"
	}
	return o
}

// effectLabel names a committed effect.
func effectLabel(e ledger.Effect) (string, draw.GlyphStyle) {
	switch {
	case e.Absorbed:
		return "absorbed (no-op)", draw.GlyphStyle{Color: rgb(0x60, 0x60, 0x60), Shape: draw.RingGlyph{}, Radius: 3}
	case e.Source == ledger.SourceLate:
		return "late commit", draw.GlyphStyle{Color: colour(4), Shape: draw.CircleGlyph{}, Radius: 3}
	}
	return "commit", draw.GlyphStyle{Color: colour(2), Shape: draw.CircleGlyph{}, Radius: 3}
}

// placer assigns labels to the lowest level where they do not overlap.
type placer struct{ right []vg.Length }

func (p *placer) level(x0, x1 vg.Length) int {
	for l, r := range p.right {
		if x0 > r+2 {
			p.right[l] = x1
			return l
		}
	}
	p.right = append(p.right, x1)
	return len(p.right) - 1
}

func (t timeline) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	ts := textStyle(tickSize)
	lineH := vg.Length(tickSize) * 1.15
	axis := draw.LineStyle{Color: rgb(0xB0, 0xB0, 0xB0), Width: 0.5}
	for _, y := range []float64{agentLane, ledgerLane} {
		c.StrokeLine2(axis, tx(0), ty(y), tx(plt.X.Max), ty(y))
	}
	var above, under placer
	barH := vg.Length(3.5)
	for i, call := range t.tr.Calls {
		label, col := t.callLabel(i)
		x0, x1 := tx(call.TS), tx(call.TS+call.LatencyS)
		if x1-x0 < 2 {
			x1 = x0 + 2
		}
		y := ty(agentLane)
		c.FillPolygon(col, rect(x0, y-barH, x1, y+barH))
		// Label left-aligned at the bar's start, stacked upwards.
		w := ts.Width(label)
		lx := x0
		if lx+w > c.Max.X {
			lx = c.Max.X - w
		}
		// Above the bar where there is room; else just below it (between
		// the lanes), so that no leader crosses another label.
		probe := above
		probe.right = append([]vg.Length(nil), above.right...)
		if l := probe.level(lx, lx+w); l == 0 {
			above.level(lx, lx+w)
			c.FillText(ts, vg.Point{X: lx, Y: y + barH + 2}, label)
		} else {
			l := under.level(lx, lx+w)
			c.FillText(ts, vg.Point{X: lx + 2, Y: y - barH - 2 - vg.Length(l+1)*lineH + 2}, label)
		}
	}
	var below placer
	for _, e := range t.tr.Effects {
		if !e.Focal {
			continue
		}
		label, g := effectLabel(e.Effect)
		x, y := tx(e.CommittedAtS), ty(ledgerLane)
		// A dotted link from the send that caused the effect.
		c.StrokeLine2(draw.LineStyle{Color: g.Color, Width: 0.4, Dashes: []vg.Length{1, 1.5}}, tx(e.IssuedAtS), ty(agentLane)-barH, x, y+g.Radius)
		c.DrawGlyph(g, vg.Point{X: x, Y: y})
		w := ts.Width(label)
		lx := x - w/2
		lx = max(c.Min.X, min(lx, c.Max.X-w))
		l := below.level(lx, lx+w)
		ly := y - g.Radius - 2 - vg.Length(l+1)*lineH + 2
		c.FillText(ts, vg.Point{X: lx, Y: ly}, label)
	}
}

// figure1 tiles the four traces: worlds across, clients down.
func figure1(trs []sandbox.Figure1Trace) figure {
	return figure{name: "figure1", w: pageWidth, h: 3.1 * vg.Inch, draw: func(c draw.Canvas) {
		end := 0.0
		for _, tr := range trs {
			end = math.Max(end, timeline{tr}.end())
		}
		rows := (len(trs) + 1) / 2
		grid := make([][]*plot.Plot, rows)
		for i, tr := range trs {
			verdict := fmt.Sprintf("%d charge", tr.Commits)
			if tr.Commits != 1 {
				verdict += "s"
			}
			if tr.Commits > 1 {
				verdict += " (duplicate)"
			}
			p := newPlot(fmt.Sprintf("%s, %s: %s", tr.World, tr.Client, verdict), "", "")
			if i/2 == rows-1 {
				p.X.Label.Text = "simulated time since the first send (s)"
			}
			p.Add(timeline{tr})
			p.X.Min, p.X.Max = 0, end
			p.Y.Min, p.Y.Max = -0.6, 1.7
			p.X.Tick.Marker = niceTicks{6}
			p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: agentLane, Label: "agent"}, {Value: ledgerLane, Label: "ledger"}})
			p.Y.Tick.Length = 0
			p.Y.LineStyle.Width = 0
			grid[i/2] = append(grid[i/2], p)
		}
		for len(grid[rows-1]) < 2 {
			grid[rows-1] = append(grid[rows-1], nil)
		}
		tiles := draw.Tiles{Rows: rows, Cols: 2, PadX: 12, PadY: 6}
		cs := plot.Align(grid, tiles, c)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(cs[i][j])
				}
			}
		}
	}}
}
