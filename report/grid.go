package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// ResultFormats are the formats of the analysis commands' results.
var ResultFormats = []string{"text", "json", "csv", "md", "latex"}

// Grid is a command result as a table: text rounds numbers for people (4
// significant digits, scientific below 1e-4, one decimal from 1e4), CSV
// keeps full precision, and Markdown and LaTeX print the numbers as text
// does. Cells hold string, int, int64, float64, P, PP, bool or nil; NaN
// and nil are "NA" in text, Markdown and LaTeX, empty in CSV.
//
// p-values (P) and differences in percentage points (PP) print as in
// the paper's tables (PValue; a sign and one decimal), so a command and
// the table it reproduces show the same digits. Proportions stay
// proportions (4 significant digits): the tables print percent.
type Grid struct {
	Header []string
	Rows   [][]any
	// Digits is the number of significant digits of floats in text (4).
	Digits int
	// Align says how each column lines up; a missing entry is AlignAuto.
	Align []Align
	// Groups are spanning headers, one per column ("" for none): a run of
	// adjacent columns with the same group shares it. Text prints it once
	// over the run, LaTeX as a \multicolumn, Markdown folds it into each
	// column's header ("group: label").
	Groups []string
	// Ruled draws a dash line under the header in text and trims trailing
	// blanks, as the paper's tables print.
	Ruled bool
	// ColSpec is the LaTeX column specification ("lrp{6cm}"); "" derives
	// it from the alignment.
	ColSpec string
}

// Align is how a column of a Grid lines up in text, Markdown and LaTeX.
type Align int8

const (
	// AlignAuto puts a column that holds a number right, others left;
	// Markdown states it (--: or :--).
	AlignAuto Align = iota
	// AlignLeft puts the column left and says so in Markdown (:--).
	AlignLeft
	// AlignRight puts the column right and says so in Markdown (--:).
	AlignRight
	// AlignNone puts the column left and leaves Markdown's alignment
	// unstated (---), for the prose-like tables of prereg, power, prove
	// and the schema.
	AlignNone
)

// plainGrid is a grid of AlignNone columns.
func plainGrid(header ...string) *Grid {
	g := &Grid{Header: header, Align: make([]Align, len(header))}
	for j := range g.Align {
		g.Align[j] = AlignNone
	}
	return g
}

// align is column j's alignment, AlignAuto resolved from the cells.
func (g *Grid) align(j int, numeric []bool) Align {
	a := AlignAuto
	if j < len(g.Align) {
		a = g.Align[j]
	}
	if a == AlignAuto {
		a = AlignLeft
		if numeric[j] {
			a = AlignRight
		}
	}
	return a
}

// P is a p-value cell: PValue for people, full precision in CSV.
type P float64

// PBelow is a p-value cell that underflowed: the p-value is below the
// bound it holds (stats.PFloor). People read PBound; CSV has the bound.
type PBelow float64

// PP is a difference in percentage points: a sign and one decimal for
// people, full precision in CSV.
type PP float64

// Add appends a row.
func (g *Grid) Add(cells ...any) { g.Rows = append(g.Rows, cells) }

// CSVCell renders a cell at full precision (empty for NaN and nil).
func CSVCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case P:
		return CSVCell(float64(x))
	case PBelow:
		return CSVCell(float64(x))
	case PP:
		return CSVCell(float64(x))
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// TextCell renders a cell rounded for people with the given significant
// digits.
func TextCell(v any, digits int) string {
	switch x := v.(type) {
	case nil:
		return "NA"
	case float64:
		if math.IsNaN(x) {
			return "NA"
		}
		switch ax := math.Abs(x); {
		case ax != 0 && ax < 1e-4, ax >= 1e15: // beyond a dozen digits, as 1.234e+308
			return strconv.FormatFloat(x, 'e', digits-1, 64)
		case ax >= 1e4:
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', digits, 64)
	case P:
		if math.IsNaN(float64(x)) {
			return "NA"
		}
		return PValue(float64(x))
	case PBelow:
		return PBound
	case PP:
		if math.IsNaN(float64(x)) {
			return "NA"
		}
		return human(paper.Cell{Kind: paper.PP, Value: float64(x), Digits: 1}, false)
	case string:
		return Printable(x) // text from data, shown to people
	}
	return CSVCell(v)
}

func (g *Grid) digits() int {
	if g.Digits == 0 {
		return 4
	}
	return g.Digits
}

// numeric reports which columns are right-aligned: those marked so, and
// under AlignAuto those that hold numbers.
func (g *Grid) numeric() []bool {
	num := make([]bool, len(g.Header))
	for _, r := range g.Rows {
		for i, v := range r {
			switch v.(type) {
			case float64, int, int64, P, PBelow, PP:
				num[i] = true
			}
		}
	}
	right := make([]bool, len(g.Header))
	for j := range right {
		right[j] = g.align(j, num) == AlignRight
	}
	return right
}

// markdownRule is the alignment row of column j.
func (g *Grid) markdownRule(j int, right []bool) string {
	switch {
	case j < len(g.Align) && g.Align[j] == AlignNone:
		return "---|"
	case right[j]:
		return " --: |"
	}
	return " :-- |"
}

// WriteCSV writes the grid with a header line, at full precision.
func (g *Grid) WriteCSV(w io.Writer) error { return g.writeCSV(w, true) }

// writeCSV writes the grid, with or without its header line (a stream of
// tables shares one).
func (g *Grid) writeCSV(w io.Writer, withHeader bool) error {
	cw := csv.NewWriter(w)
	if withHeader {
		if err := cw.Write(g.Header); err != nil {
			return err
		}
	}
	for _, r := range g.Rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = CSVCell(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteText aligns the columns (text left, numbers right, as Align
// says), two spaces apart. Groups, if any, print once over their first
// column above the header; a Ruled grid has a dash line under the header
// and no trailing blanks.
func (g *Grid) WriteText(w io.Writer) error {
	d := g.digits()
	header := make([]string, len(g.Header))
	for j, h := range g.Header {
		header[j] = Printable(h) // a user's column name
	}
	cells := [][]string{header}
	right := g.numeric()
	for _, r := range g.Rows {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = TextCell(v, d)
		}
		cells = append(cells, row)
	}
	wd := make([]int, len(g.Header))
	for _, r := range cells {
		for i, c := range r {
			wd[i] = max(wd[i], width(c))
		}
	}
	var out, b strings.Builder
	if hasGroups(g.Groups) {
		for j := range g.Header {
			s := ""
			if j < len(g.Groups) && g.Groups[j] != "" && (j == 0 || g.Groups[j-1] != g.Groups[j]) {
				s = Printable(g.Groups[j])
			}
			if j > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pad(s, wd[j], false))
		}
		out.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
	for k, r := range cells {
		b.Reset()
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if right[i] || i < len(r)-1 {
				b.WriteString(pad(c, wd[i], right[i]))
			} else {
				b.WriteString(c)
			}
		}
		l := b.String()
		if g.Ruled {
			l = strings.TrimRight(l, " ")
		}
		out.WriteString(l + "\n")
		if k == 0 && g.Ruled {
			total := 0
			for _, x := range wd {
				total += x + 2
			}
			out.WriteString(strings.Repeat("-", max(0, total-2)) + "\n")
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// markdownHeader is column j's header in Markdown, which has no spanning
// headers: its group, if any, folds in ("group: label").
func (g *Grid) markdownHeader(j int) string {
	if j < len(g.Groups) && g.Groups[j] != "" {
		return g.Groups[j] + ": " + g.Header[j]
	}
	return g.Header[j]
}

// writeMarkdown writes the grid as a pipe table, numbers right-aligned.
func (g *Grid) writeMarkdown(b *strings.Builder) {
	right := g.numeric()
	b.WriteString("|")
	for j := range g.Header {
		b.WriteString(" " + mdEscape(g.markdownHeader(j)) + " |")
	}
	b.WriteString("\n|")
	for j := range g.Header {
		b.WriteString(g.markdownRule(j, right))
	}
	b.WriteString("\n")
	for _, r := range g.Rows {
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + mdEscape(TextCell(v, g.digits())) + " |")
		}
		b.WriteString("\n")
	}
}

// writeLaTeX writes the grid as a booktabs tabular, its groups as
// \multicolumn headers over \cmidrule.
func (g *Grid) writeLaTeX(b *strings.Builder) {
	spec := g.ColSpec
	if spec == "" {
		for _, r := range g.numeric() {
			spec += map[bool]string{true: "r", false: "l"}[r]
		}
	}
	fmt.Fprintf(b, "\\begin{tabular}{%s}\n\\toprule\n", spec)
	if hasGroups(g.Groups) {
		var parts, rules []string
		for _, s := range spans(g.Groups) {
			if s.label == "" {
				for range s.to - s.from + 1 {
					parts = append(parts, "")
				}
			} else {
				parts = append(parts, fmt.Sprintf("\\multicolumn{%d}{c}{%s}", s.to-s.from+1, texEscape(s.label)))
				rules = append(rules, fmt.Sprintf("\\cmidrule(lr){%d-%d}", s.from+1, s.to+1))
			}
		}
		b.WriteString(strings.Join(parts, " & ") + " \\\\\n")
		b.WriteString(strings.Join(rules, " ") + "\n")
	}
	row := func(cells []string) {
		for j := range cells {
			cells[j] = texEscape(cells[j])
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	row(append([]string(nil), g.Header...))
	b.WriteString("\\midrule\n")
	for _, r := range g.Rows {
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = TextCell(v, g.digits())
		}
		row(cells)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
}

// writeHTML writes the grid as an HTML table with its caption (if any),
// the groups as a row of spanning headers, and class "num" on the cells
// of right-aligned columns.
func (g *Grid) writeHTML(b *strings.Builder, caption string) {
	esc := func(s string) string { return html.EscapeString(Printable(s)) }
	right := g.numeric()
	b.WriteString("<table>\n")
	if caption != "" {
		fmt.Fprintf(b, "<caption>%s</caption>\n", esc(caption))
	}
	b.WriteString("<thead>\n")
	if hasGroups(g.Groups) {
		b.WriteString("<tr>")
		for _, s := range spans(g.Groups) {
			if s.label == "" {
				for range s.to - s.from + 1 {
					b.WriteString("<th></th>")
				}
			} else {
				fmt.Fprintf(b, `<th colspan="%d">%s</th>`, s.to-s.from+1, esc(s.label))
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("<tr>")
	for _, h := range g.Header {
		fmt.Fprintf(b, "<th>%s</th>", esc(h))
	}
	b.WriteString("</tr>\n</thead>\n<tbody>\n")
	for _, r := range g.Rows {
		b.WriteString("<tr>")
		for j, v := range r {
			if right[j] {
				fmt.Fprintf(b, `<td class="num">%s</td>`, esc(TextCell(v, g.digits())))
			} else {
				fmt.Fprintf(b, "<td>%s</td>", esc(TextCell(v, g.digits())))
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

// Output is a command result laid out for every format: JSON from Value,
// CSV from CSV (one table, full precision), and text, Markdown and LaTeX
// from the Title lines followed by the Tables.
type Output struct {
	Value    any
	CSV      *Grid
	Title    []string
	Tables   []*Grid
	Warnings []string
}

// Write renders o in format: text, json, csv, md or latex. Markdown and
// LaTeX end with the warnings (a list; LaTeX comments), which the other
// formats leave to the caller (JSON carries them in Value).
func (o *Output) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return WriteJSON(w, o.Value)
	case "csv":
		return o.CSV.WriteCSV(w)
	case "md":
		var b strings.Builder
		for _, l := range o.Title {
			b.WriteString(mdEscape(l) + "\n")
		}
		for _, t := range o.Tables {
			b.WriteString("\n")
			t.writeMarkdown(&b)
		}
		if len(o.Warnings) > 0 {
			b.WriteString("\nWarnings:\n\n")
			for _, m := range o.Warnings {
				b.WriteString("- " + PrintableLines(m) + "\n")
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	case "latex":
		var b strings.Builder
		for _, l := range o.Title {
			b.WriteString("% " + Printable(l) + "\n")
		}
		for _, t := range o.Tables {
			t.writeLaTeX(&b)
		}
		for _, m := range o.Warnings {
			fmt.Fprintf(&b, "%% warning: %s\n", strings.ReplaceAll(PrintableLines(m), "\n", " "))
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, l := range o.Title {
		if _, err := fmt.Fprintln(w, Printable(l)); err != nil {
			return err
		}
	}
	for i, t := range o.Tables {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes v as indented JSON with a final newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONEscaped is WriteJSON with <, > and & escaped (\u003c), as the
// preregistration and power outputs have always been written.
func writeJSONEscaped(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jnum is a float that marshals as encoding/json does, NaN and ±Inf as
// null.
type jnum float64

func (f jnum) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

// orderedObject marshals keys and values in the given order.
type orderedObject struct {
	keys []string
	vals []json.RawMessage
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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

// mdEscape keeps pipes inside cells and a cell on its line (Printable).
func mdEscape(s string) string { return strings.ReplaceAll(Printable(s), "|", `\|`) }

var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	"–", "--", "≤", `$\leq$`, "≥", `$\geq$`, "δ", `$\delta$`, "Δ", `$\Delta$`, "²", `$^2$`,
	"<", `$<$`, ">", `$>$`)

// texEscape escapes LaTeX specials, control characters first (Printable:
// a newline would end a % comment line and a row).
func texEscape(s string) string { return texReplacer.Replace(Printable(s)) }
