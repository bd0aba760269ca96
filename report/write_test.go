package report

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/outfile"
)

var (
	sampleOnce sync.Once
	sampleRes  *paper.Results
)

// sampleResults analyses the committed sample ledger once for all the
// report tests (the analysis takes most of a test's time).
func sampleResults(t *testing.T) *paper.Results {
	t.Helper()
	sampleOnce.Do(func() {
		sampleRes = paper.Analyze(loadSample(t), paper.Options{Tools: sampleTools})
	})
	if sampleRes == nil {
		t.Fatal("sample analysis failed in an earlier test")
	}
	return sampleRes
}

// sampleMeta is a fixed provenance, with characters that HTML must escape.
var sampleMeta = Meta{
	Source: "runs/<a&b>.jsonl", Seed: "42", Toolkit: "v0.0.0-test", Schema: "3",
	Go: "go1.x", Episodes: 4460,
}

// sampleFigs is one figure with a fixed PNG payload: the reports must
// embed it (HTML) or link it (Markdown), whatever its bytes.
var sampleFigs = []Figure{{Name: "figure2.png", Caption: "Duplicates by fault & mode", PNG: []byte("\x89PNG\r\n\x1a\nnot-really")}}

// TestMarkdownReportGolden pins report.md of the sample ledger, and checks
// the parts a reader looks for in it.
func TestMarkdownReportGolden(t *testing.T) {
	res := sampleResults(t)
	var b bytes.Buffer
	if err := MarkdownReport(&b, res, sampleMeta, sampleFigs); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.md", b.Bytes())
	s := b.String()
	want := []string{
		"# LIMBO reproduction report\n\n- Source: runs/<a&b>.jsonl\n- Seed: 42\n- Episodes: 4460\n- limbo-analyze v0.0.0-test, ledger schema 3, go1.x\n\n",
		"![figure2.png](figures/figure2.png)\n\nDuplicates by fault & mode\n",
		"## Hypotheses\n\n- **H1** — *",
		"\n## Paper vs run\n\n### Hypotheses\n\n|  | paper result | paper verdict | run result | run verdict |",
	}
	for _, tb := range res.Tables {
		want = append(want, "## Table "+strconv.Itoa(tb.Number)+" — "+tb.Title+"\n\n"+tb.Caption+"\n\n|")
		if CompareTable(tb) != nil {
			want = append(want, "### Table "+strconv.Itoa(tb.Number)+"\n\n| Row | Column | paper | run | run − paper |")
		}
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// Without a seed or figures, neither line nor section appears.
	b.Reset()
	m := sampleMeta
	m.Seed = ""
	if err := MarkdownReport(&b, res, m, nil); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "- Seed:") || strings.Contains(s, "## Figures") {
		t.Errorf("report.md without seed and figures still shows them:\n%.400s", s)
	}
}

// TestHTMLReport checks that report.html is self-contained and escaped:
// the figure inline as base64, every table under its anchor, numbers
// right-aligned, the provenance escaped, warnings shown.
func TestHTMLReport(t *testing.T) {
	res := sampleResults(t)
	var b bytes.Buffer
	if err := HTMLReport(&b, res, sampleMeta, sampleFigs); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.html", b.Bytes())
	s := b.String()
	want := []string{
		"<!DOCTYPE html>\n",
		"<li>Source: runs/&lt;a&amp;b&gt;.jsonl</li>\n<li>Seed: 42</li>\n",
		`<img alt="figure2.png" src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(sampleFigs[0].PNG) + `"><figcaption>Duplicates by fault &amp; mode</figcaption>`,
		`<td class="num">`,
		"<h2>Hypotheses</h2>\n<dl>\n<dt><b>H1</b>",
		"<h2>Paper vs run</h2>\n<h3>Hypotheses</h3>\n<table>\n",
		"</body>\n</html>\n",
	}
	for _, tb := range res.Tables {
		want = append(want, `<h3 id="`+tb.ID()+`">Table `+strconv.Itoa(tb.Number)+" — ")
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	for _, bad := range []string{"<a&b>", "src=\"figures/"} {
		if strings.Contains(s, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
}

// A synthetic result exercises what the sample does not: column groups in
// HTML, text cells left-aligned, warnings of the run, of a table and of a
// hypothesis, and HTML escaping inside cells.
func TestHTMLReportSynthetic(t *testing.T) {
	tb := nanTable()
	tb.Rows[1].Labels = []string{"<b>"}
	res := &paper.Results{
		Tables:     []*paper.Table{tb},
		Hypotheses: []*paper.Hypothesis{testHypothesis()},
		Warnings:   []string{"table 5: needs column <x>"},
	}
	var b bytes.Buffer
	if err := HTMLReport(&b, res, Meta{Source: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, w := range []string{
		`<p class="warn">Warning: table 5: needs column &lt;x&gt;</p>`,
		"<tr><th></th><th colspan=\"1\">g</th><th></th></tr>\n<tr><th>Row</th><th>rate</th><th>p</th></tr>",
		`<tr><td>a_1</td><td class="num">12 [5,25]</td><td class="num">1.5e-9</td></tr>`,
		`<tr><td>&lt;b&gt;</td><td class="num">–</td><td class="num">–</td></tr>`,
		`<caption>50% of a_b &amp; c</caption>`,
		`<p class="warn">Warning: b: no episodes</p>`,
		`<span class="verdict">not supported</span>`,
		`<br><span class="warn">Warning: few pairs &lt; 30</span>`,
	} {
		if !strings.Contains(s, w) {
			t.Errorf("report.html lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, "<li>Seed:") || strings.Contains(s, "<h2>Figures</h2>") {
		t.Error("report.html shows a seed or figures it was not given")
	}
	// Text cells (the verdict table) are not marked numeric.
	if !strings.Contains(s, "<tr><td>H1</td><td>") {
		t.Errorf("verdict row not plain text cells:\n%s", s)
	}
}

// expectedFiles lists what WriteAll must write for res, from the contract
// in its doc comment.
func expectedFiles(res *paper.Results) []string {
	files := []string{"report.md", "report.html"}
	for _, tb := range res.Tables {
		for _, e := range []string{"txt", "md", "tex", "csv", "json"} {
			files = append(files, filepath.Join("tables", tb.ID()+"."+e))
		}
		if CompareTable(tb) != nil {
			files = append(files, filepath.Join("tables", tb.ID()+".paper.txt"), filepath.Join("tables", tb.ID()+".paper.csv"))
		}
	}
	for _, tb := range res.Figures.Tables() {
		files = append(files, filepath.Join("figure-data", tb.ID()+".csv"), filepath.Join("figure-data", tb.ID()+".json"))
	}
	return append(files, "hypotheses.txt", "hypotheses.md", "hypotheses.csv", "hypotheses.json")
}

// walk lists the regular files under dir, relative, sorted.
func walk(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestWriteAll writes the whole report of the sample ledger: exactly the
// files of the contract, in order, each with the bytes its renderer gives;
// a second run replaces them byte for byte.
func TestWriteAll(t *testing.T) {
	res := sampleResults(t)
	dir := filepath.Join(t.TempDir(), "rep", "sub") // created if needed
	files, err := WriteAll(dir, res, sampleMeta, sampleFigs)
	if err != nil {
		t.Fatal(err)
	}
	want := expectedFiles(res)
	if !slices.Equal(files, want) {
		t.Fatalf("files:\n%v\nwant:\n%v", files, want)
	}
	if !slices.Contains(files, filepath.Join("tables", "table12.paper.csv")) && CompareTable(res.Table(12)) != nil {
		t.Error("table 12's paper comparison missing")
	}
	onDisk := walk(t, dir)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(onDisk, sorted) {
		t.Errorf("on disk:\n%v\nwant:\n%v", onDisk, sorted)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var md, hyp, tex bytes.Buffer
	MarkdownReport(&md, res, sampleMeta, sampleFigs)
	Hypotheses(&hyp, res.Hypotheses, "json")
	LaTeX(&tex, res.Tables[0])
	for rel, w := range map[string]string{
		"report.md":       md.String(),
		"hypotheses.json": hyp.String(),
		filepath.Join("tables", res.Tables[0].ID()+".tex"): tex.String(),
	} {
		if got := read(rel); got != w {
			t.Errorf("%s differs from its renderer's output", rel)
		}
	}
	// The text tables are the goldens TestTableGoldens pins.
	golden, err := os.ReadFile(filepath.Join(testdataDir, "golden", "table3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(filepath.Join("tables", "table3.txt")); got != string(golden) {
		t.Errorf("tables/table3.txt differs from the golden table3.txt")
	}
	// Same input, same bytes.
	before := map[string]string{}
	for _, f := range want {
		before[f] = read(f)
	}
	if _, err := WriteAll(dir, res, sampleMeta, sampleFigs); err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if read(f) != before[f] {
			t.Errorf("%s changed on a rerun", f)
		}
	}
	if got := walk(t, dir); !slices.Equal(got, sorted) {
		t.Errorf("a rerun left other files: %v", got)
	}
}

// TestWriteAllAllOrNone: when one file cannot be written (tables/ is a
// regular file), WriteAll fails and leaves none of the report behind; a
// unit the caller aborts leaves nothing either.
func TestWriteAllAllOrNone(t *testing.T) {
	res := sampleResults(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tables"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := WriteAll(dir, res, sampleMeta, nil)
	if err == nil {
		t.Fatalf("no error writing under a file; wrote %v", files)
	}
	if files != nil {
		t.Errorf("files reported on failure: %v", files)
	}
	if got := walk(t, dir); !slices.Equal(got, []string{"tables"}) {
		t.Errorf("a failed WriteAll left %v", got)
	}

	dir2 := filepath.Join(t.TempDir(), "rep")
	u := outfile.NewUnit()
	files, err = WriteAllTo(u, dir2, res, sampleMeta, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, expectedFiles(res)) {
		t.Errorf("WriteAllTo files: %v", files)
	}
	if _, err := os.Stat(filepath.Join(dir2, "report.md")); err == nil {
		t.Error("report.md in place before Commit")
	}
	u.Abort()
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Errorf("an aborted unit left %s: %v", dir2, err)
	}
}
