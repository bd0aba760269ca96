package plots

import (
	"bytes"
	"flag"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the SVG goldens under testdata/plots")

// ledgerPath is the small committed graded ledger the tests draw
// (testdata/plots/make_ledger.sh regenerates it from design.json).
var ledgerPath = filepath.Join("..", "testdata", "plots", "ledger.csv.gz")

var (
	sampleOnce sync.Once
	sampleData *table.Data
	sampleRes  *paper.Results
	sampleErr  error
)

// sample reads the committed ledger and analyses it once per test binary.
func sample(t testing.TB) (*table.Data, *paper.Results) {
	t.Helper()
	sampleOnce.Do(func() {
		b, err := testfile.Gunzip(ledgerPath)
		if err != nil {
			sampleErr = err
			return
		}
		dir, err := os.MkdirTemp("", "plots-test")
		if err != nil {
			sampleErr = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "ledger.csv")
		if err = os.WriteFile(path, b, 0o644); err != nil {
			sampleErr = err
			return
		}
		sampleData, sampleErr = table.Read(path, ledger.ReadOptions{})
		if sampleErr == nil {
			sampleRes = paper.Analyze(sampleData, paper.Options{})
		}
	})
	if sampleErr != nil {
		t.Fatalf("reading %s: %v", ledgerPath, sampleErr)
	}
	return sampleData, sampleRes
}

// same reports equality of plotted and tabulated numbers: identical bits
// (both NaN counts as equal), since plots must not recompute anything.
func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func mustTable(t *testing.T, tb *paper.Table, what string) *paper.Table {
	t.Helper()
	if tb == nil {
		t.Fatalf("%s is missing from the analysis of %s", what, ledgerPath)
	}
	return tb
}

// TestPlottedValuesEqualTableCells checks, on the committed ledger, that
// every number each figure draws is the matching cell of the table or
// figure-data table it is drawn from, and cross-checks the figure data
// against an independent count and the tables.
func TestPlottedValuesEqualTableCells(t *testing.T) {
	d, res := sample(t)

	t.Run("figure2", func(t *testing.T) {
		tb := mustTable(t, figureOf(res, "figure2"), "figure2 data")
		h, err := Figure2Data(tb)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, r := range tb.Rows {
			for k, key := range h.Keys {
				c, ok := tb.Cell(r.Key, key)
				if !ok || !same(h.Values[i][k], c.Value) {
					t.Errorf("%s/%s: plotted %v, table %v", r.Key, key, h.Values[i][k], c.Value)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatal("nothing plotted")
		}
		// The redelivery column is Table 3's with one ICC per column (same
		// episodes, same ICC pooling over models); Table 3's default pools
		// the ICC across its columns as well.
		t3, err := paper.Table3With(d, paper.ICCPerColumn)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tb.Rows {
			f, ok1 := tb.Cell(r.Key, ledger.FaultRedelivery)
			c, ok2 := t3.Cell(r.Key, "dup_redelivery")
			if !ok1 || !ok2 {
				continue
			}
			if !same(f.Value, c.Value) || !same(f.Lo, c.Lo) || !same(f.Hi, c.Hi) {
				t.Errorf("%s redelivery: figure %v [%v, %v], Table 3 %v [%v, %v]", r.Key, f.Value, f.Lo, f.Hi, c.Value, c.Lo, c.Hi)
			}
		}
	})

	t.Run("figure3", func(t *testing.T) {
		tb := mustTable(t, figureOf(res, "figure3"), "figure3 data")
		fd, err := Figure3Data(tb)
		if err != nil {
			t.Fatal(err)
		}
		// Independent recount from the definition: E1 ∪ E1s, fault fired,
		// committed mode, by model and write class (unit weights).
		type key struct{ model, class string }
		k, n := map[key]int{}, map[key]int{}
		for _, e := range d.Episodes() {
			if (e.Experiment == "E1" || e.Experiment == "E1s") && e.FaultFired && slices.Contains(ledger.CommittedFaults, e.FaultMode) {
				kk := key{e.Model, e.WriteClass}
				n[kk]++
				if e.Duplicated {
					k[kk]++
				}
			}
		}
		checked := 0
		for s, model := range fd.Series {
			for c, class := range fd.Categories {
				cell := fd.Cells[s][c]
				kk := key{model, class}
				if n[kk] == 0 {
					if !math.IsNaN(cell.Value) {
						t.Errorf("%s/%s: no episodes but plotted %v", model, class, cell.Value)
					}
					continue
				}
				want := 100 * float64(k[kk]) / float64(n[kk])
				if math.Abs(cell.Value-want) > 1e-9 || cell.N != n[kk] {
					t.Errorf("%s/%s: plotted %v (n=%d), recount %v (n=%d)", model, class, cell.Value, cell.N, want, n[kk])
				}
				// The interval is Table 3's method: Wilson on the clustered n_eff.
				lo, hi := stats.Wilson(cell.Value/100, cell.NEff, 1.959963984540054)
				if math.Abs(100*lo-cell.Lo) > 1e-9 || math.Abs(100*hi-cell.Hi) > 1e-9 {
					t.Errorf("%s/%s: interval [%v, %v], Wilson(n_eff=%v) gives [%v, %v]", model, class, cell.Lo, cell.Hi, cell.NEff, 100*lo, 100*hi)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatal("nothing checked")
		}
	})

	t.Run("figure4", func(t *testing.T) {
		t6 := mustTable(t, res.Table(6), "Table 6")
		panels, err := Figure4Data(t6)
		if err != nil {
			t.Fatal(err)
		}
		cols := [2][2]string{{"fixed_eos", "fixed_time"}, {"tail_eos", "tail_time"}}
		n := 0
		for k, p := range panels {
			for _, pt := range slices.Concat(p.Waits, p.Refs) {
				e, _ := t6.Cell(pt.Key, cols[k][0])
				tm, _ := t6.Cell(pt.Key, cols[k][1])
				if !same(pt.EOS, e.Value) || !same(pt.Time, tm.Value) {
					t.Errorf("panel %d %s: plotted (%v min, %v%%), Table 6 (%v, %v)", k, pt.Key, pt.Time, pt.EOS, tm.Value, e.Value)
				}
				n++
			}
			if len(p.Waits) < 2 {
				t.Errorf("panel %d: %d wait points, want the ledger's wait conditions", k, len(p.Waits))
			}
		}
		if n == 0 {
			t.Fatal("nothing plotted")
		}
	})

	t.Run("figure5", func(t *testing.T) {
		t7 := mustTable(t, res.Table(7), "Table 7")
		bd, err := Figure5Data(t7)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bd.Bubbles {
			e, _ := t7.Cell("eos/"+b.Model, b.Condition)
			du, _ := t7.Cell("dup/"+b.Model, b.Condition)
			ca, _ := t7.Cell("calls/"+b.Model, b.Condition)
			if !same(b.EOS, e.Value) || !same(b.Dup, du.Value) || !same(b.Calls, ca.Value) {
				t.Errorf("%s/%s: plotted (%v calls, %v%% EOS, %v%% dup), Table 7 (%v, %v, %v)", b.Model, b.Condition, b.Calls, b.EOS, b.Dup, ca.Value, e.Value, du.Value)
			}
		}
		if want := len(bd.Models) * len(bd.Conditions); len(bd.Bubbles) != want {
			t.Errorf("%d bubbles, want %d (every model × condition of the ledger's E2)", len(bd.Bubbles), want)
		}
	})

	t.Run("figure6", func(t *testing.T) {
		tb := mustTable(t, figureOf(res, "figure6"), "figure6 data")
		sd, err := Figure6Data(tb)
		if err != nil {
			t.Fatal(err)
		}
		if len(sd.Panels) != 2 {
			t.Fatalf("%d panels, want not executed and committed", len(sd.Panels))
		}
		for _, p := range sd.Panels {
			for i, m := range p.Models {
				sum := 0.0
				for j, b := range sd.Behaviours {
					v := p.Shares[i][j]
					sum += v
					// Recount the share from the definition.
					var k, n int
					for _, e := range d.Episodes() {
						if e.Experiment == "E1" && e.Harness == "minimal" && e.Condition == "vanilla" && e.FaultFired && e.FaultMode == p.Mode && e.Model == m {
							n++
							if strings.ReplaceAll(e.FirstMove, "_", " ") == b {
								k++
							}
						}
					}
					if want := 100 * float64(k) / float64(n); math.Abs(v-want) > 1e-9 {
						t.Errorf("%s %s %s: plotted %v%%, recount %v%%", p.Mode, m, b, v, want)
					}
				}
				if math.Abs(sum-100) > 1e-9 {
					t.Errorf("%s %s: shares sum to %v, want 100", p.Mode, m, sum)
				}
			}
		}
	})
}

// render builds figure n and writes it in format; failures are fatal.
func render(t *testing.T, res *paper.Results, n int, format string) (*Figure, *bytes.Buffer) {
	t.Helper()
	fig, err := Build(n, res)
	if err != nil {
		t.Fatalf("figure %d: %v", n, err)
	}
	var b bytes.Buffer
	if err := fig.Write(&b, format); err != nil {
		t.Fatal(err)
	}
	return fig, &b
}

// TestSVGGolden compares each figure's SVG for the committed ledger with
// its golden (go test ./plots -update rewrites them) and checks that two
// renderings are byte-identical.
func TestSVGGolden(t *testing.T) {
	_, res := sample(t)
	for _, n := range Numbers {
		fig, _ := render(t, res, n, "svg")
		testfile.CheckGolden(t, filepath.Join("..", "testdata", "plots", fig.Name+".svg"), svgTwice(t, fig), *update)
	}
}

// svgTwice renders fig's SVG twice, reports an error when the two
// renderings differ (a figure's bytes depend on its data alone) and
// returns the first.
func svgTwice(t *testing.T, fig *Figure) []byte {
	t.Helper()
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		if err := fig.Write(buf, "svg"); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("%s: two SVG renderings differ", fig.Name)
	}
	return a.Bytes()
}

// fontSize matches the font sizes vgsvg writes.
var fontSize = regexp.MustCompile(`font-size:([0-9.]+)px`)

// TestFontSizes checks that no text is under 7 pt at print size (vgsvg
// writes sizes in px at 72 per inch, i.e. in points).
func TestFontSizes(t *testing.T) {
	_, res := sample(t)
	for _, n := range Numbers {
		fig, b := render(t, res, n, "svg")
		ms := fontSize.FindAllSubmatch(b.Bytes(), -1)
		if len(ms) == 0 {
			t.Fatalf("%s: no text found in the SVG", fig.Name)
		}
		for _, m := range ms {
			if v, _ := strconv.ParseFloat(string(m[1]), 64); v < 7 {
				t.Errorf("%s: text at %v pt, want ≥ 7", fig.Name, v)
			}
		}
	}
}

// pdfText are the runes beyond Latin-1 that vgpdf's cp1252 encoding has.
const pdfText = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"

// svgText matches the text of an SVG <text> element.
var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// TestPDFSafeText checks that every string drawn can be encoded in the
// PDF's cp1252 (an arrow or a Greek letter would print as mojibake).
func TestPDFSafeText(t *testing.T) {
	_, res := sample(t)
	for _, n := range Numbers {
		fig, b := render(t, res, n, "svg")
		ms := svgText.FindAllSubmatch(b.Bytes(), -1)
		if len(ms) < 5 {
			t.Fatalf("%s: found %d texts in the SVG", fig.Name, len(ms))
		}
		for _, m := range ms {
			for _, r := range string(m[1]) {
				if r >= 0x100 && !strings.ContainsRune(pdfText, r) {
					t.Errorf("%s: %q has %q, which the PDF cannot encode", fig.Name, m[1], r)
				}
			}
		}
	}
}

// TestPNGResolution checks the 300 dpi raster size of each figure.
func TestPNGResolution(t *testing.T) {
	_, res := sample(t)
	for _, n := range Numbers {
		fig, b := render(t, res, n, "png")
		cfg, err := png.DecodeConfig(b)
		if err != nil {
			t.Fatalf("%s: %v", fig.Name, err)
		}
		wantW := int(math.Ceil(float64(fig.Width/vg.Inch) * 300))
		if d := cfg.Width - wantW; d < -1 || d > 1 {
			t.Errorf("%s: %d px wide, want %d (%.2f in at 300 dpi)", fig.Name, cfg.Width, wantW, float64(fig.Width/vg.Inch))
		}
	}
}

// TestPDFOpens renders every figure as PDF and rasterises it with
// pdftoppm (poppler-utils); skipped when the tool is missing.
func TestPDFOpens(t *testing.T) {
	tool, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm not found (Debian: apt-get install poppler-utils); PDFs not checked")
	}
	_, res := sample(t)
	dir := t.TempDir()
	files, skipped, err := RenderAll(res, dir, []string{"pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) > 0 || len(files) != len(Numbers) {
		t.Fatalf("rendered %d PDFs, skipped %q", len(files), skipped)
	}
	for _, f := range files {
		out := strings.TrimSuffix(f, ".pdf")
		cmd := exec.Command(tool, "-png", "-r", "40", "-singlefile", f, out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("pdftoppm %s: %v: %s", filepath.Base(f), err, msg)
			continue
		}
		st, err := os.Stat(out + ".png")
		if err != nil || st.Size() == 0 {
			t.Errorf("pdftoppm %s: no image (%v)", filepath.Base(f), err)
		}
	}
}

// TestRenderAll checks the files written, atomicity leftovers and errors.
func TestRenderAll(t *testing.T) {
	_, res := sample(t)
	dir := t.TempDir()
	files, skipped, err := RenderAll(res, dir, []string{"svg", "png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %q", skipped)
	}
	var want []string
	for _, n := range Numbers {
		for _, f := range []string{"svg", "png"} {
			want = append(want, filepath.Join(dir, "figure"+strconv.Itoa(n)+"."+f))
		}
	}
	if !slices.Equal(files, want) {
		t.Errorf("wrote %q, want %q", files, want)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(want) {
		t.Errorf("%d entries in the output directory, want %d (temporary files left?)", len(ents), len(want))
	}
	if _, _, err := RenderAll(res, dir, []string{"gif"}); err == nil {
		t.Error("format gif: no error")
	}
	if _, _, err := RenderAll(res, filepath.Join(dir, "missing", "dir"), []string{"svg"}); err == nil {
		t.Error("missing output directory: no error")
	}
}

// TestMissingData checks that figures without data are skipped with a
// reason, not drawn empty, and that Figure 1 needs no ledger.
func TestMissingData(t *testing.T) {
	dir := t.TempDir()
	files, skipped, err := RenderAll(&paper.Results{}, dir, []string{"svg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || filepath.Base(files[0]) != "figure1.svg" {
		t.Errorf("wrote %q, want only figure1.svg", files)
	}
	if len(skipped) != 5 {
		t.Errorf("skipped %d figures, want 5: %q", len(skipped), skipped)
	}
	for _, s := range skipped {
		if !strings.HasPrefix(s, "Figure ") {
			t.Errorf("skip reason %q does not name the figure", s)
		}
	}
	if _, err := Build(7, nil); err == nil {
		t.Error("figure 7: no error")
	}
}

// BenchmarkRenderAll draws all six figures in all three formats from the
// analysis results (the ledger of $LIMBO_BENCH_LEDGER if set, e.g. the
// paper's, else the committed small one).
func BenchmarkRenderAll(b *testing.B) {
	_, res := sample(b)
	if p := os.Getenv("LIMBO_BENCH_LEDGER"); p != "" {
		d, err := table.Read(p, ledger.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res = paper.Analyze(d, paper.Options{})
		b.ReportMetric(float64(d.Len()), "episodes")
	}
	dir := b.TempDir()
	for b.Loop() {
		if _, _, err := RenderAll(res, dir, Formats); err != nil {
			b.Fatal(err)
		}
	}
}
