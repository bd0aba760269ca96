package report

import (
	"path/filepath"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/plots"
)

// FigureFormats are the formats a report draws its figures in; the PNGs
// are also embedded in report.html.
var FigureFormats = []string{"png", "svg"}

// DrawFigures draws the paper's figures into dir as files of the unit u
// (package plots) in FigureFormats and returns the PNGs for embedding,
// captioned, with a warning per figure the data could not support.
func DrawFigures(u *outfile.Unit, res *paper.Results, dir string) ([]Figure, []string, error) {
	r, err := plots.NewRenderer(FigureFormats)
	if err != nil {
		return nil, nil, err
	}
	return drawFigures(r, u, res, dir)
}

// drawFigures is DrawFigures with a renderer made beforehand (Generate
// makes it before it reads or simulates the data, so that the figures
// that need none are drawn meanwhile).
func drawFigures(r *plots.Renderer, u *outfile.Unit, res *paper.Results, dir string) ([]Figure, []string, error) {
	files, skipped, err := r.RenderTo(u, res, dir)
	if err != nil {
		return nil, skipped, err
	}
	var figs []Figure
	for _, f := range files {
		if filepath.Ext(f.Path) != ".png" {
			continue
		}
		name := filepath.Base(f.Path)
		figs = append(figs, Figure{Name: name, Caption: FigureCaption(name), PNG: f.Data})
	}
	return figs, skipped, nil
}

// FigureCaption is the paper's caption of a figure file, shortened; a
// name it does not know is its own caption.
func FigureCaption(name string) string {
	switch strings.TrimSuffix(name, filepath.Ext(name)) {
	case "figure1":
		return "Figure 1: why verification is not enough (observation-equivalent worlds)."
	case "figure2":
		return "Figure 2: duplicate rate (%) by model and fault mode (E1)."
	case "figure3":
		return "Figure 3: duplicate rate under committed faults by contract class and model (E1, E1s)."
	case "figure4":
		return "Figure 4: exactly-once success against mean agent time, waiting versus keys (E5)."
	case "figure5":
		return "Figure 5: exactly-once success against mean tool calls per condition and model (E2)."
	case "figure6":
		return "Figure 6: the first move after the focal timeout, before the worlds can differ, by model (E1); p: Fisher's exact test against the not-executed world."
	}
	return name
}
