package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/internal/jsonnum"
)

// Table renders t in format (text, md, latex, csv, json).
func Table(w io.Writer, t *paper.Table, format string) error {
	switch format {
	case "text":
		return Text(w, t)
	case "md", "markdown":
		return Markdown(w, t)
	case "latex", "tex":
		return LaTeX(w, t)
	case "csv":
		return CSV(w, t, true)
	case "json":
		return JSON(w, t)
	}
	return fmt.Errorf("unknown format %q (want text, md, latex, csv or json)", format)
}

// grid is a table as strings: header rows then body rows.
func grid(t *paper.Table, cell func(paper.Cell, paper.Column) string) (groups, head []string, body [][]string) {
	nl := len(t.LabelHeader)
	for _, h := range t.LabelHeader {
		head = append(head, h)
		groups = append(groups, "")
	}
	for _, c := range t.Columns {
		head = append(head, c.Label)
		groups = append(groups, c.Group)
	}
	for _, r := range t.Rows {
		row := make([]string, 0, nl+len(t.Columns))
		for i := range nl {
			l := ""
			if i < len(r.Labels) {
				l = r.Labels[i]
			}
			row = append(row, l)
		}
		for j, c := range r.Cells {
			row = append(row, cell(c, t.Columns[j]))
		}
		body = append(body, row)
	}
	return groups, head, body
}

func hasGroups(groups []string) bool {
	for _, g := range groups {
		if g != "" {
			return true
		}
	}
	return false
}

// span is a run of adjacent columns, from to to (0-based, inclusive), that
// share a group label.
type span struct {
	label    string
	from, to int
}

// spans splits a header's column groups into runs of equal labels, for the
// renderers that draw a group once over its columns.
func spans(groups []string) []span {
	var out []span
	for j := 0; j < len(groups); {
		k := j
		for k+1 < len(groups) && groups[k+1] == groups[j] {
			k++
		}
		out = append(out, span{groups[j], j, k})
		j = k + 1
	}
	return out
}

func width(s string) int { return utf8.RuneCountInString(s) }

func pad(s string, n int, right bool) string {
	p := strings.Repeat(" ", max(0, n-width(s)))
	if right {
		return p + s
	}
	return s + p
}

// Text renders t as an aligned plain-text table with warnings as
// footnotes.
func Text(w io.Writer, t *paper.Table) error {
	groups, head, body := grid(t, func(c paper.Cell, col paper.Column) string { return human(c, col.ShowCI) })
	nl := len(t.LabelHeader)
	wd := make([]int, len(head))
	for j := range head {
		wd[j] = width(head[j])
		for _, r := range body {
			wd[j] = max(wd[j], width(r[j]))
		}
	}
	// Numbers align right, labels and text cells left.
	right := make([]bool, len(head))
	for j := nl; j < len(head); j++ {
		right[j] = len(t.Rows) == 0 || t.Rows[0].Cells[j-nl].Kind != paper.Text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Table %d: %s\n\n", t.Number, t.Title)
	line := func(cells []string) {
		for j, s := range cells {
			if j > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pad(s, wd[j], right[j]))
		}
		b.WriteString("\n")
	}
	if hasGroups(groups) {
		// Print each group name once, over its first column.
		g := make([]string, len(groups))
		for j := range groups {
			if groups[j] != "" && (j == 0 || groups[j-1] != groups[j]) {
				g[j] = groups[j]
			}
		}
		var gb strings.Builder
		for j, s := range g {
			if j > 0 {
				gb.WriteString("  ")
			}
			gb.WriteString(pad(s, wd[j], false))
		}
		b.WriteString(strings.TrimRight(gb.String(), " ") + "\n")
	}
	line(head)
	total := 0
	for _, x := range wd {
		total += x + 2
	}
	b.WriteString(strings.Repeat("-", max(0, total-2)) + "\n")
	for _, r := range body {
		line(r)
	}
	for i, warn := range t.Warnings {
		fmt.Fprintf(&b, "  [%d] %s\n", i+1, warn)
	}
	s := b.String()
	// Trim trailing blanks of every line so goldens are stable.
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// mdEscape keeps pipes inside cells.
func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Markdown renders t as a pipe table (groups folded into the headers) with
// warnings as a list.
func Markdown(w io.Writer, t *paper.Table) error {
	var b strings.Builder
	markdownBody(&b, t)
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownBody(b *strings.Builder, t *paper.Table) {
	_, _, body := grid(t, func(c paper.Cell, col paper.Column) string { return human(c, col.ShowCI) })
	var head []string
	head = append(head, t.LabelHeader...)
	for _, c := range t.Columns {
		head = append(head, header(c))
	}
	b.WriteString("|")
	for _, h := range head {
		b.WriteString(" " + mdEscape(h) + " |")
	}
	b.WriteString("\n|")
	for j := range head {
		if j < len(t.LabelHeader) || (len(t.Rows) > 0 && t.Rows[0].Cells[j-len(t.LabelHeader)].Kind == paper.Text) {
			b.WriteString(" :-- |")
		} else {
			b.WriteString(" --: |")
		}
	}
	b.WriteString("\n")
	for _, r := range body {
		b.WriteString("|")
		for _, s := range r {
			b.WriteString(" " + mdEscape(s) + " |")
		}
		b.WriteString("\n")
	}
	if len(t.Warnings) > 0 {
		b.WriteString("\nWarnings:\n\n")
		for _, w := range t.Warnings {
			b.WriteString("- " + w + "\n")
		}
	}
}

var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	"–", "--", "≤", `$\leq$`, "≥", `$\geq$`, "δ", `$\delta$`, "Δ", `$\Delta$`, "²", `$^2$`,
	"<", `$<$`, ">", `$>$`)

// texEscape escapes LaTeX specials.
func texEscape(s string) string { return texReplacer.Replace(s) }

// LaTeX renders t as a booktabs tabular inside a table float, with the
// column groups as \multicolumn headers and warnings as table notes.
func LaTeX(w io.Writer, t *paper.Table) error {
	groups, head, body := grid(t, func(c paper.Cell, col paper.Column) string { return human(c, col.ShowCI) })
	nl := len(t.LabelHeader)
	var b strings.Builder
	b.WriteString("\\begin{table}\n\\centering\n")
	spec := strings.Repeat("l", nl)
	for _, c := range t.Columns {
		if c.Key == "description" || c.Key == "prediction" || c.Key == "result" {
			spec += "p{6cm}"
		} else {
			spec += "r"
		}
	}
	fmt.Fprintf(&b, "\\begin{tabular}{%s}\n\\toprule\n", spec)
	if hasGroups(groups) {
		var parts []string
		var rules []string
		for _, g := range spans(groups) {
			if g.label == "" {
				for range g.to - g.from + 1 {
					parts = append(parts, "")
				}
			} else {
				parts = append(parts, fmt.Sprintf("\\multicolumn{%d}{c}{%s}", g.to-g.from+1, texEscape(g.label)))
				rules = append(rules, fmt.Sprintf("\\cmidrule(lr){%d-%d}", g.from+1, g.to+1))
			}
		}
		b.WriteString(strings.Join(parts, " & ") + " \\\\\n")
		b.WriteString(strings.Join(rules, " ") + "\n")
	}
	esc := make([]string, len(head))
	for j, h := range head {
		esc[j] = texEscape(h)
	}
	b.WriteString(strings.Join(esc, " & ") + " \\\\\n\\midrule\n")
	for _, r := range body {
		for j := range r {
			r[j] = texEscape(r[j])
		}
		b.WriteString(strings.Join(r, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	fmt.Fprintf(&b, "\\caption{%s}\n\\label{tab:%d}\n", texEscape(t.Caption), t.Number)
	for _, warn := range t.Warnings {
		fmt.Fprintf(&b, "%% warning: %s\n", strings.ReplaceAll(warn, "\n", " "))
	}
	b.WriteString("\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// CSVHeader is the header of the long CSV form.
var CSVHeader = []string{"table", "row", "labels", "column", "column_label", "kind", "value", "lo", "hi", "n", "n_eff", "text"}

// CSV renders t in long form, one line per cell, at full precision (NaN as
// empty): table, row key, row labels (joined by " / "), column key and
// label, kind, value, lo, hi, n, n_eff, text. A p-value that underflowed
// has the bound 1e-300 as its value and its text says so: "< 1e-300
// (log10 p = -1496.4)".
func CSV(w io.Writer, t *paper.Table, withHeader bool) error {
	cw := csv.NewWriter(w)
	if withHeader {
		if err := cw.Write(CSVHeader); err != nil {
			return err
		}
	}
	for _, r := range t.Rows {
		for j, c := range r.Cells {
			n := ""
			if c.N > 0 || c.Kind == paper.Count {
				n = strconv.Itoa(c.N)
			}
			rec := []string{t.ID(), r.Key, strings.Join(r.Labels, " / "), t.Columns[j].Key, header(t.Columns[j]), c.Kind.String(),
				full(c.Value), full(c.Lo), full(c.Hi), n, full(c.NEff), cellText(c)}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellText is a cell's text column in CSV and JSON: its Text, or for a
// p-value that underflowed the bound and log₁₀ p.
func cellText(c paper.Cell) string {
	if c.Kind == paper.PValue && c.Below {
		return PBound + " (log10 p = " + strconv.FormatFloat(c.Log10, 'g', -1, 64) + ")"
	}
	return c.Text
}

// num is the JSON number of the outputs (null when NaN).
type num = jsonnum.Float

type jsonCell struct {
	Column string `json:"column"`
	Kind   string `json:"kind"`
	Value  num    `json:"value"`
	Lo     num    `json:"lo"`
	Hi     num    `json:"hi"`
	N      int    `json:"n"`
	NEff   num    `json:"n_eff"`
	Text   string `json:"text,omitempty"`
	// Log10P is log₁₀ p of a p-value that underflowed (Value is then the
	// bound 1e-300); absent otherwise.
	Log10P *float64 `json:"log10_p,omitempty"`
}

type jsonRow struct {
	Key    string     `json:"key"`
	Labels []string   `json:"labels"`
	Cells  []jsonCell `json:"cells"`
}

type jsonColumn struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Group  string `json:"group,omitempty"`
	ShowCI bool   `json:"show_ci,omitempty"`
}

type jsonTable struct {
	ID          string       `json:"id"`
	Number      int          `json:"number"`
	Title       string       `json:"title"`
	Caption     string       `json:"caption"`
	LabelHeader []string     `json:"label_header"`
	Columns     []jsonColumn `json:"columns"`
	Rows        []jsonRow    `json:"rows"`
	Warnings    []string     `json:"warnings"`
}

func toJSON(t *paper.Table) jsonTable {
	jt := jsonTable{ID: t.ID(), Number: t.Number, Title: t.Title, Caption: t.Caption, LabelHeader: t.LabelHeader, Warnings: t.Warnings}
	if jt.Warnings == nil {
		jt.Warnings = []string{}
	}
	for _, c := range t.Columns {
		jt.Columns = append(jt.Columns, jsonColumn{c.Key, c.Label, c.Group, c.ShowCI})
	}
	for _, r := range t.Rows {
		jr := jsonRow{Key: r.Key, Labels: r.Labels}
		for j, c := range r.Cells {
			jc := jsonCell{t.Columns[j].Key, c.Kind.String(), num(c.Value), num(c.Lo), num(c.Hi), c.N, num(c.NEff), cellText(c), nil}
			if c.Kind == paper.PValue && c.Below {
				lp := c.Log10
				jc.Log10P = &lp
			}
			jr.Cells = append(jr.Cells, jc)
		}
		jt.Rows = append(jt.Rows, jr)
	}
	return jt
}

// JSON renders t as an indented JSON object at full precision (NaN as
// null).
func JSON(w io.Writer, t *paper.Table) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(toJSON(t))
}

// Tables writes several tables in one stream: one CSV header, one JSON
// array, blank lines between the others (Markdown with a "## Table N —
// title" heading each).
func Tables(w io.Writer, tables []*paper.Table, format string) error {
	switch format {
	case "csv":
		for i, t := range tables {
			if err := CSV(w, t, i == 0); err != nil {
				return err
			}
		}
		return nil
	case "json":
		io.WriteString(w, "[\n")
		for i, t := range tables {
			if i > 0 {
				io.WriteString(w, ",\n")
			}
			var b bytes.Buffer
			if err := JSON(&b, t); err != nil {
				return err
			}
			w.Write(bytes.TrimRight(b.Bytes(), "\n"))
		}
		_, err := io.WriteString(w, "\n]\n")
		return err
	}
	for i, t := range tables {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		if format == "md" {
			fmt.Fprintf(w, "## Table %d — %s\n\n", t.Number, t.Title)
		}
		if err := Table(w, t, format); err != nil {
			return err
		}
	}
	return nil
}
