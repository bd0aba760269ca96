package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/outfile"
)

// Meta says what made a report. Nothing in it changes between runs of the
// same input and seed (no timestamps), so reports are byte-stable.
type Meta struct {
	Source   string // what was analysed: the simulated paper design, or the ledger path as given
	Seed     string // run seed ("" for a ledger of unknown seed)
	Toolkit  string // limbo-analyze version
	Schema   string // ledger schema version
	Go       string // Go version that built the toolkit
	Episodes int
}

// Figure is a rendered figure to embed in report.html and link from
// report.md.
type Figure struct {
	Name    string // file name under the report's figures/, e.g. "figure2.png"
	Caption string
	PNG     []byte
}

// WriteFileAtomic writes data to path, in an existing directory, through
// a temporary file there that is synced and renamed into place (package
// outfile), so readers never see a half-written file.
func WriteFileAtomic(path string, data []byte) error {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return err
	}
	return outfile.WriteFile(path, data)
}

// MarkdownReport writes report.md: the run's provenance, a heading
// "## Table N — title" per table with its caption and Markdown table, the
// figures (linked as figures/NAME), the hypotheses H1–H6, and the
// paper-versus-run comparison.
func MarkdownReport(w io.Writer, res *paper.Results, meta Meta, figs []Figure) error {
	return markdownReport(w, res, compareAll(res), meta, figs)
}

// markdownHead writes a report's title, the run's provenance and its
// warnings (the paper's report and the replay report alike).
func markdownHead(b *strings.Builder, title string, meta Meta, warnings []string) {
	fmt.Fprintf(b, "# %s\n\n", title)
	fmt.Fprintf(b, "- Source: %s\n", meta.Source)
	if meta.Seed != "" {
		fmt.Fprintf(b, "- Seed: %s\n", meta.Seed)
	}
	fmt.Fprintf(b, "- Episodes: %d\n- limbo-analyze %s, ledger schema %s, %s\n\n", meta.Episodes, meta.Toolkit, meta.Schema, meta.Go)
	for _, warn := range warnings {
		fmt.Fprintf(b, "> Warning: %s\n\n", warn)
	}
}

// markdownFigures writes the figures, each linked as figures/NAME with its
// caption, under the heading given (nothing when there are none).
func markdownFigures(b *strings.Builder, heading string, figs []Figure) {
	if len(figs) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", heading)
	for _, f := range figs {
		fmt.Fprintf(b, "![%s](figures/%s)\n\n%s\n\n", f.Name, f.Name, f.Caption)
	}
}

// markdownReport is MarkdownReport with the tables' comparisons made.
func markdownReport(w io.Writer, res *paper.Results, cmp comparisons, meta Meta, figs []Figure) error {
	var b strings.Builder
	markdownHead(&b, "LIMBO reproduction report", meta, res.Warnings)
	for _, t := range res.Tables {
		fmt.Fprintf(&b, "## Table %d — %s\n\n%s\n\n", t.Number, t.Title, t.Caption)
		markdownBody(&b, t)
		b.WriteString("\n")
	}
	markdownFigures(&b, "Figures", figs)
	b.WriteString("## Hypotheses\n\n")
	markdownHypotheses(&b, res.Hypotheses)
	b.WriteString("\n## Paper vs run\n\n")
	for _, c := range paperVsRun(res, cmp) {
		fmt.Fprintf(&b, "### %s\n\n", c.title)
		markdownBody(&b, c.table)
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// comparison is one table of a report's "Paper vs run" section.
type comparison struct {
	title string // plain text, safe in Markdown and HTML
	table *paper.Table
}

// paperVsRun lists the "Paper vs run" section of the Markdown and HTML
// reports: the hypotheses' verdicts, then each table that has paper values
// (its warnings are already shown with the table itself).
func paperVsRun(res *paper.Results, cmp comparisons) []comparison {
	var out []comparison
	if len(res.Hypotheses) > 0 {
		out = append(out, comparison{"Hypotheses", VerdictTable(res.Hypotheses)})
	}
	for _, t := range res.Tables {
		if ct := cmp[t]; ct != nil {
			shown := *ct // shared with the tables/ files, which keep the warnings
			shown.Warnings = nil
			out = append(out, comparison{fmt.Sprintf("Table %d", t.Number), &shown})
		}
	}
	return out
}

// comparisons holds CompareTable of each table of a report's results
// (nil where the paper publishes no number), made once for the tables/
// files, report.md and report.html.
type comparisons map[*paper.Table]*paper.Table

// compareAll compares every table of res with the paper.
func compareAll(res *paper.Results) comparisons {
	cmp := comparisons{}
	for _, t := range res.Tables {
		cmp[t] = CompareTable(t)
	}
	return cmp
}

const htmlStyle = `body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}
th,td{padding:0.25em 0.6em;border-bottom:1px solid #ddd;vertical-align:top}
th{border-bottom:2px solid #444;text-align:center}
td.num{text-align:right;font-variant-numeric:tabular-nums}
caption{caption-side:bottom;text-align:left;font-size:0.85em;color:#555;padding-top:0.5em}
.warn{color:#8a5300;font-size:0.85em}
.verdict{font-weight:bold}
figure img{max-width:100%}`

// htmlTable renders t as an HTML table with grouped headers, then its
// warnings.
func htmlTable(b *strings.Builder, t *paper.Table) {
	paperGrid(t).writeHTML(b, t.Caption)
	for _, w := range t.Warnings {
		fmt.Fprintf(b, "<p class=\"warn\">Warning: %s</p>\n", html.EscapeString(w))
	}
}

// HTMLReport writes a self-contained report.html: provenance (seed and
// versions), every table, the figures inline (base64 PNG), the hypotheses
// and the paper-versus-run comparison.
func HTMLReport(w io.Writer, res *paper.Results, meta Meta, figs []Figure) error {
	return htmlReport(w, res, compareAll(res), meta, figs)
}

// htmlReport is HTMLReport with the tables' comparisons made.
func htmlReport(w io.Writer, res *paper.Results, cmp comparisons, meta Meta, figs []Figure) error {
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>LIMBO reproduction report</title>\n<style>\n")
	b.WriteString(htmlStyle)
	b.WriteString("\n</style>\n</head>\n<body>\n<h1>LIMBO reproduction report</h1>\n<ul>\n")
	fmt.Fprintf(&b, "<li>Source: %s</li>\n", esc(meta.Source))
	if meta.Seed != "" {
		fmt.Fprintf(&b, "<li>Seed: %s</li>\n", esc(meta.Seed))
	}
	fmt.Fprintf(&b, "<li>Episodes: %d</li>\n<li>limbo-analyze %s, ledger schema %s, %s</li>\n</ul>\n", meta.Episodes, esc(meta.Toolkit), esc(meta.Schema), esc(meta.Go))
	for _, warn := range res.Warnings {
		fmt.Fprintf(&b, "<p class=\"warn\">Warning: %s</p>\n", esc(warn))
	}
	b.WriteString("<h2>Tables</h2>\n")
	for _, t := range res.Tables {
		fmt.Fprintf(&b, "<h3 id=\"%s\">Table %d — %s</h3>\n", t.ID(), t.Number, esc(t.Title))
		htmlTable(&b, t)
	}
	if len(figs) > 0 {
		b.WriteString("<h2>Figures</h2>\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption>%s</figcaption></figure>\n",
				esc(f.Name), base64.StdEncoding.EncodeToString(f.PNG), esc(f.Caption))
		}
	}
	b.WriteString("<h2>Hypotheses</h2>\n<dl>\n")
	for _, h := range res.Hypotheses {
		fmt.Fprintf(&b, "<dt><b>%s</b> <span class=\"verdict\">%s</span></dt>\n<dd>%s<br>Result: %s<br><small>Rule: %s</small>", h.ID, esc(h.Verdict.String()), esc(h.Prediction), esc(h.Result), esc(h.Rule))
		for _, x := range h.Warnings {
			fmt.Fprintf(&b, "<br><span class=\"warn\">Warning: %s</span>", esc(x))
		}
		b.WriteString("</dd>\n")
	}
	b.WriteString("</dl>\n<h2>Paper vs run</h2>\n")
	for _, c := range paperVsRun(res, cmp) {
		fmt.Fprintf(&b, "<h3>%s</h3>\n", c.title)
		htmlTable(&b, c.table)
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteAll writes the whole report into dir (created if needed), all files
// or none (WriteAllTo, committed): report.md, report.html,
// tables/tableN.{txt,md,tex,csv,json} and the paper comparisons
// tables/tableN.paper.{txt,csv}, the figures' data
// figure-data/figureN.{csv,json}, and hypotheses.{txt,md,csv,json}. It
// returns the files written, in order.
func WriteAll(dir string, res *paper.Results, meta Meta, figs []Figure) ([]string, error) {
	u := outfile.NewUnit()
	defer u.Abort() // no-op after Commit
	files, err := WriteAllTo(u, dir, res, meta, figs)
	if err != nil {
		return nil, err
	}
	if err := u.Commit(); err != nil {
		return nil, err
	}
	return files, nil
}

// WriteAllTo adds the files of WriteAll to the unit u, which the caller
// commits with its other outputs (the figures), so that a failure half-way
// leaves no partial report. It returns the files, relative to dir, in order.
func WriteAllTo(u *outfile.Unit, dir string, res *paper.Results, meta Meta, figs []Figure) ([]string, error) {
	cmp := compareAll(res)
	files, err := writeDocs(u, dir, res, cmp, meta, figs)
	if err != nil {
		return files, err
	}
	data, err := writeData(u, dir, res, cmp)
	return append(files, data...), err
}

// filePutter writes files of a unit into dir, keeping their names in
// order.
type filePutter struct {
	u     *outfile.Unit
	dir   string
	files []string // relative to dir
}

// put adds dir/rel, with the content render writes, to the unit.
func (p *filePutter) put(rel string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if err := p.u.WriteFile(filepath.Join(p.dir, rel), buf.Bytes()); err != nil {
		return err
	}
	p.files = append(p.files, rel)
	return nil
}

// writeDocs writes the files of WriteAllTo that show the figures:
// report.md and report.html.
func writeDocs(u *outfile.Unit, dir string, res *paper.Results, cmp comparisons, meta Meta, figs []Figure) ([]string, error) {
	p := &filePutter{u: u, dir: dir}
	if err := p.put("report.md", func(w io.Writer) error { return markdownReport(w, res, cmp, meta, figs) }); err != nil {
		return p.files, err
	}
	err := p.put("report.html", func(w io.Writer) error { return htmlReport(w, res, cmp, meta, figs) })
	return p.files, err
}

// writeData writes the files of WriteAllTo that do not need the figures:
// the tables, the figures' data and the hypotheses.
func writeData(u *outfile.Unit, dir string, res *paper.Results, cmp comparisons) ([]string, error) {
	p := &filePutter{u: u, dir: dir}
	put := p.put
	for _, t := range res.Tables {
		for _, f := range Formats {
			if err := put(filepath.Join("tables", t.ID()+"."+Ext(f)), func(w io.Writer) error { return Table(w, t, f) }); err != nil {
				return p.files, err
			}
		}
		if ct := cmp[t]; ct != nil {
			for _, f := range []string{"text", "csv"} {
				if err := put(filepath.Join("tables", t.ID()+".paper."+Ext(f)), func(w io.Writer) error { return Table(w, ct, f) }); err != nil {
					return p.files, err
				}
			}
		}
	}
	// The data behind the figures, for plots and notebooks.
	for _, t := range res.Figures.Tables() {
		for _, f := range []string{"csv", "json"} {
			if err := put(filepath.Join("figure-data", t.ID()+"."+Ext(f)), func(w io.Writer) error { return Table(w, t, f) }); err != nil {
				return p.files, err
			}
		}
	}
	for _, f := range []string{"text", "md", "csv", "json"} {
		if err := put("hypotheses."+Ext(f), func(w io.Writer) error { return Hypotheses(w, res.Hypotheses, f) }); err != nil {
			return p.files, err
		}
	}
	return p.files, nil
}

// warningTexts are the messages of ws, as Output lists them.
func warningTexts(ws []analysis.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}
