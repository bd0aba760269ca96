package plots

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// replayTable is figure data of the shape analysis/replay makes: two arms
// under three guards, three rates, one cell missing.
func replayTable() *paper.Table {
	t := &paper.Table{Name: "replay-figure", LabelHeader: []string{"Agent-side fault", "Guard"},
		Columns: []paper.Column{{Key: "duplicated", Label: "duplicated (%)"}, {Key: "suppressed", Label: "suppressed (%)"}, {Key: "error_replayed", Label: "lost to a replayed error (%)"}}}
	for i, arm := range []string{"no agent fault", "crash and resume (before the journal)"} {
		for j, g := range []string{"no guard", "derived keys", "action ledger"} {
			if i == 1 && j == 1 {
				continue
			}
			v := float64(10*i + 30*j)
			t.Rows = append(t.Rows, paper.Row{Key: arm + "/" + g, Labels: []string{arm, g}, Cells: []paper.Cell{
				{Kind: paper.Percent, Value: v}, {Kind: paper.Percent, Value: v / 2}, {Kind: paper.Percent, Value: 1},
			}})
		}
	}
	return t
}

// The panels hold each rate at its arm's row and guard's column; a
// missing combination is NaN (drawn blank).
func TestReplayData(t *testing.T) {
	d, err := ReplayData(replayTable())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Maps) != 3 || d.Titles[1] != "suppressed (%)" {
		t.Fatalf("panels %v", d.Titles)
	}
	h := d.Maps[0]
	if len(h.Rows) != 2 || len(h.Columns) != 3 || h.Columns[2] != "action ledger" {
		t.Fatalf("rows %v, columns %v", h.Rows, h.Columns)
	}
	if h.Values[1][2] != 70 || d.Maps[1].Values[0][1] != 15 || !math.IsNaN(h.Values[1][1]) {
		t.Errorf("values %v / %v", h.Values, d.Maps[1].Values)
	}
	if _, err := ReplayData(nil); err == nil {
		t.Error("no data drew a figure")
	}
}

// The figure's SVG is its golden (go test ./plots -update rewrites it),
// and two renderings are byte-identical.
func TestReplaySVGGolden(t *testing.T) {
	fig, err := BuildReplay(replayTable())
	if err != nil {
		t.Fatal(err)
	}
	testfile.CheckGolden(t, filepath.Join("..", "testdata", "plots", "replay.svg"), svgTwice(t, fig), *update)
}
