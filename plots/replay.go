package plots

import (
	"errors"
	"math"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ReplayPanels are the replay figure's heat maps: one per rate (duplicated,
// suppressed, lost to a replayed error), rows the agent-side arms and
// columns the guards, both in the catalogue's order.
type ReplayPanels struct {
	Titles []string
	Maps   []HeatMap
}

// ReplayData reads the replay figure's panels off its data (the rows of
// analysis/replay's figure table: labels agent-side arm and guard; cells
// the duplicated, suppressed and lost rates).
func ReplayData(t *paper.Table) (ReplayPanels, error) {
	var out ReplayPanels
	if t == nil || len(t.Rows) == 0 || len(t.Columns) == 0 {
		return out, errors.New("replay figure: no agent-side episodes to draw")
	}
	var arms, guards []string
	pos := func(xs *[]string, x string) int {
		for i, y := range *xs {
			if y == x {
				return i
			}
		}
		*xs = append(*xs, x)
		return len(*xs) - 1
	}
	type cell struct {
		i, j int
		v    []float64
	}
	var cells []cell
	for _, r := range t.Rows {
		if len(r.Labels) < 2 {
			continue
		}
		c := cell{i: pos(&arms, r.Labels[0]), j: pos(&guards, r.Labels[1])}
		for _, x := range r.Cells {
			c.v = append(c.v, x.Value)
		}
		cells = append(cells, c)
	}
	for k, col := range t.Columns {
		h := HeatMap{Rows: arms, Columns: guards, Keys: guards, Values: make([][]float64, len(arms))}
		for i := range h.Values {
			h.Values[i] = make([]float64, len(guards))
			for j := range h.Values[i] {
				h.Values[i][j] = math.NaN()
			}
		}
		for _, c := range cells {
			if k < len(c.v) {
				h.Values[c.i][c.j] = c.v[k]
			}
		}
		h.Groups = make([]string, len(guards))
		for j := range h.Groups {
			h.Groups[j] = "guard"
		}
		out.Titles = append(out.Titles, col.Label)
		out.Maps = append(out.Maps, h)
	}
	return out, nil
}

// BuildReplay prepares the replay figure from its data table.
func BuildReplay(t *paper.Table) (*Figure, error) {
	d, err := ReplayData(t)
	if err != nil {
		return nil, err
	}
	f := replayFigure(d)
	return &Figure{Name: f.name, Width: f.w, Height: f.h, f: f}, nil
}

// replayFigure draws the heat maps one above the other at page width,
// each with the arms' labels on the left and the guards' under it.
func replayFigure(d ReplayPanels) figure {
	nr := len(d.Maps[0].Rows)
	panelH := vg.Length(nr)*0.24*vg.Inch + 0.95*vg.Inch
	return figure{name: "replay", w: pageWidth, h: vg.Length(len(d.Maps)) * panelH, draw: func(c draw.Canvas) {
		c = draw.Crop(c, 3, 0, 0, 0) // the longest arm label keeps its first letter
		tiles := draw.Tiles{Rows: len(d.Maps), Cols: 1, PadY: 14}
		for k, h := range d.Maps {
			p := heatPlot(d.Titles[k], "", h)
			p.Draw(tiles.At(c, 0, k))
		}
	}}
}
