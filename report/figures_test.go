package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/outfile"
)

// DrawFigures writes every figure the sample supports as PNG and SVG and
// returns the PNGs, captioned, with the bytes written; the figures it
// skips are each named in a warning.
func TestDrawFigures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figures")
	u := outfile.NewUnit()
	figs, skipped, err := DrawFigures(u, sampleResults(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(figs)+len(skipped) != 6 || len(figs) == 0 {
		t.Fatalf("%d figures and %d skipped (%q), want 6 in all", len(figs), len(skipped), skipped)
	}
	for _, f := range figs {
		if filepath.Ext(f.Name) != ".png" || f.Caption == f.Name || f.Caption != FigureCaption(f.Name) {
			t.Errorf("figure %s captioned %q", f.Name, f.Caption)
		}
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(got, f.PNG) || !bytes.HasPrefix(got, []byte("\x89PNG")) {
			t.Errorf("%s: the file differs from the embedded PNG (%v)", f.Name, err)
		}
		svg := f.Name[:len(f.Name)-len(".png")] + ".svg"
		if _, err := os.Stat(filepath.Join(dir, svg)); err != nil {
			t.Errorf("no %s: %v", svg, err)
		}
	}
	if got := FigureCaption("other.png"); got != "other.png" {
		t.Errorf("FigureCaption(other.png) = %q", got)
	}
}
