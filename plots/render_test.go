package plots

import (
	"os"
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
