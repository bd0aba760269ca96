package layers

import (
	"bufio"
	"go/build"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/limbo-toolkit/limbo"

// layer is a package's place in docs/design.md's table of packages.
type layer struct {
	n   int // the layer; -1 for the unnumbered rows (tools, test data)
	row int // the table row, for packages that share a layer
	pos int // the place in its row
}

var (
	tableRow = regexp.MustCompile(`^\| (\d+|—) \| (.+?) \| `)
	quoted   = regexp.MustCompile("`([a-z][a-z0-9/_-]*)`")
)

// readLayers reads the package table of docs/design.md.
func readLayers(t *testing.T) map[string]layer {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]layer{}
	sc := bufio.NewScanner(f)
	for row := 0; sc.Scan(); row++ {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n := -1
		if m[1] != "—" {
			n, _ = strconv.Atoi(m[1])
		}
		for i, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			out[q[1]] = layer{n, row, i}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("docs/design.md: read %d packages from the layer table; has its shape changed?", len(out))
	}
	return out
}

// packages returns the module's library packages (every directory with
// non-test Go files, but bench/ and testdata/, which are tools and
// fixtures) with the project packages each imports.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if base := d.Name(); rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "python" || rel == "bench" || strings.HasPrefix(rel, "bench/")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		var deps []string
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok {
				deps = append(deps, dep)
			}
		}
		out[rel] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every package is in docs/design.md's table and imports only packages
// listed above it there (its layers are numbered down the table); the
// numerics import nothing of the project but mixed, stats.
func TestImportsFollowTheLayers(t *testing.T) {
	layers := readLayers(t)
	pkgs := packages(t)
	numerics := map[string][]string{"stats": nil, "shapley": nil, "mixed": {"stats"}}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		lp, ok := layers[p]
		if !ok {
			t.Errorf("%s: not in docs/design.md's table of packages", p)
			continue
		}
		for _, q := range pkgs[p] {
			if allowed, isNum := numerics[p]; isNum {
				if !slices.Contains(allowed, q) {
					t.Errorf("%s imports %s: the numerics import nothing of the project", p, q)
				}
				continue
			}
			lq, ok := layers[q]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which docs/design.md's table does not list", p, q)
			case q == "internal/ledgertest" || q == "internal/testfile" || q == "guard/guardtest":
				t.Errorf("%s imports %s, which only tests may import", p, q)
			case lp.n >= 0 && !(lq.row < lp.row || lq.row == lp.row && lq.pos < lp.pos):
				t.Errorf("%s (layer %d) imports %s (layer %d), listed after it: a package imports only packages above it in the table", p, lp.n, q, lq.n)
			}
		}
	}
}
