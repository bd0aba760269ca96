package plots

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/outfile"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Figures are one unit: nothing appears before the commit or after an
// abort, and a figure the new data cannot support does not stay behind
// from an earlier run.
func TestRenderToUnit(t *testing.T) {
	_, res := sample(t)
	dir := t.TempDir()
	u := outfile.NewUnit()
	files, _, err := RenderTo(u, res, dir, []string{"svg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Numbers) || len(files[0].Data) == 0 {
		t.Fatalf("rendered %d files", len(files))
	}
	for _, n := range dirNames(t, dir) {
		if n[0] != '.' {
			t.Errorf("%s visible before the commit", n)
		}
	}
	u.Abort()
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("left after abort: %v", names)
	}
	if _, _, err := RenderAll(res, dir, []string{"svg"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := RenderAll(&paper.Results{}, dir, []string{"svg"}); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"figure1.svg"}) {
		t.Errorf("after redrawing from no data: %v, want only figure1.svg", names)
	}
}

// A Renderer draws Figure 1 before it has results, and what it writes is
// what Build and Write draw, in every format; its formats are checked when
// it is made.
func TestRendererDrawsEarly(t *testing.T) {
	_, res := sample(t)
	formats := []string{"svg", "png"}
	r, err := NewRenderer(formats)
	if err != nil {
		t.Fatal(err)
	}
	u := outfile.NewUnit()
	defer u.Abort()
	dir := t.TempDir()
	files, skipped, err := r.RenderTo(u, res, dir)
	if err != nil || len(skipped) != 0 {
		t.Fatalf("RenderTo: %v, skipped %q", err, skipped)
	}
	if len(files) != len(Numbers)*len(formats) {
		t.Fatalf("%d files, want %d", len(files), len(Numbers)*len(formats))
	}
	for i, n := range Numbers {
		fig, err := Build(n, res)
		if err != nil {
			t.Fatal(err)
		}
		for j, f := range formats {
			var want bytes.Buffer
			if err := fig.Write(&want, f); err != nil {
				t.Fatal(err)
			}
			got := files[i*len(formats)+j]
			if got.Path != filepath.Join(dir, fig.Name+"."+f) || !bytes.Equal(got.Data, want.Bytes()) {
				t.Errorf("%s: not figure %d's %s as Write draws it", got.Path, n, f)
			}
		}
	}
	if _, err := NewRenderer([]string{"gif"}); err == nil {
		t.Error("NewRenderer accepted format gif")
	}
}
