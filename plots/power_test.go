package plots

import (
	"bytes"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

func powerSample() PowerData {
	return PowerData{XLabel: "size (× episodes)", Target: 0.8, Curves: []PowerCurve{
		{ID: "H1", Sizes: []float64{0.5, 1, 2}, Power: []float64{0.62, 0.85, 0.99}, Lo: []float64{0.55, 0.79, 0.97}, Hi: []float64{0.69, 0.9, 1}},
		{ID: "H2", Sizes: []float64{0.5, 1, 2}, Power: []float64{0.05, 0.1, math.NaN()}, Lo: []float64{0.02, 0.06, math.NaN()}, Hi: []float64{0.09, 0.15, math.NaN()}},
	}}
}

// TestPowerFigure pins the SVG (go test ./plots -update rewrites it),
// checks that two renderings agree byte for byte and that the PNG decodes
// at 300 dpi.
func TestPowerFigure(t *testing.T) {
	fig, err := PowerFigure(powerSample())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgTwice(t, fig)
	for _, s := range []string{"H1", "H2", "power (%)", "size (× episodes)"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	testfile.CheckGolden(t, filepath.Join("..", "testdata", "plots", "power.svg"), svg, *update)
	var p bytes.Buffer
	if err := fig.Write(&p, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&p)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != int(math.Round(float64(fig.Width/vg.Inch)*300)) {
		t.Errorf("PNG width %d px, want %v in at 300 dpi", w, float64(fig.Width/vg.Inch))
	}
}

func TestPowerFigureErrors(t *testing.T) {
	if _, err := PowerFigure(PowerData{}); err == nil {
		t.Error("no curves: no error")
	}
	d := powerSample()
	d.Curves[0].Lo = d.Curves[0].Lo[:1]
	if _, err := PowerFigure(d); err == nil || !strings.Contains(err.Error(), "H1") {
		t.Errorf("ragged curve: error %v, want one naming H1", err)
	}
}
