package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

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

// paperGrid maps a paper table onto the table model: its label columns
// left, each value column right unless it holds text (as its first row
// says), the cells rounded for people, the groups spanning, a rule under
// the header, and LaTeX's paragraph columns for the long texts.
func paperGrid(t *paper.Table) *Grid {
	nl := len(t.LabelHeader)
	g := &Grid{Ruled: true}
	for _, h := range t.LabelHeader {
		g.Header = append(g.Header, h)
		g.Groups = append(g.Groups, "")
		g.Align = append(g.Align, AlignLeft)
	}
	spec := strings.Repeat("l", nl)
	for j, c := range t.Columns {
		g.Header = append(g.Header, c.Label)
		g.Groups = append(g.Groups, c.Group)
		a := AlignRight
		if len(t.Rows) > 0 && t.Rows[0].Cells[j].Kind == paper.Text {
			a = AlignLeft
		}
		g.Align = append(g.Align, a)
		// LaTeX keeps every value column right-aligned but the long texts.
		if c.Key == "description" || c.Key == "prediction" || c.Key == "result" {
			spec += "p{6cm}"
		} else {
			spec += "r"
		}
	}
	g.ColSpec = spec
	for _, r := range t.Rows {
		row := make([]any, 0, nl+len(t.Columns))
		for i := range nl {
			l := ""
			if i < len(r.Labels) {
				l = r.Labels[i]
			}
			row = append(row, l)
		}
		for j, c := range r.Cells {
			row = append(row, human(c, t.Columns[j].ShowCI))
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// Text renders t as an aligned plain-text table with warnings as
// footnotes.
func Text(w io.Writer, t *paper.Table) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Table %d: %s\n\n", t.Number, t.Title)
	paperGrid(t).WriteText(&b) // a strings.Builder does not fail
	for i, warn := range t.Warnings {
		fmt.Fprintf(&b, "  [%d] %s\n", i+1, warn)
	}
	// Trim trailing blanks of every line so goldens are stable.
	lines := strings.Split(b.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// Markdown renders t as a pipe table (groups folded into the headers) with
// warnings as a list.
func Markdown(w io.Writer, t *paper.Table) error {
	var b strings.Builder
	markdownBody(&b, t)
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownBody(b *strings.Builder, t *paper.Table) {
	paperGrid(t).writeMarkdown(b)
	if len(t.Warnings) > 0 {
		b.WriteString("\nWarnings:\n\n")
		for _, w := range t.Warnings {
			b.WriteString("- " + w + "\n")
		}
	}
}

// LaTeX renders t as a booktabs tabular inside a table float, with the
// column groups as \multicolumn headers and warnings as table notes.
func LaTeX(w io.Writer, t *paper.Table) error {
	var b strings.Builder
	b.WriteString("\\begin{table}\n\\centering\n")
	paperGrid(t).writeLaTeX(&b)
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
	g := &Grid{Header: CSVHeader}
	for _, r := range t.Rows {
		for j, c := range r.Cells {
			var n any
			if c.N > 0 || c.Kind == paper.Count {
				n = c.N
			}
			g.Add(t.ID(), r.Key, strings.Join(r.Labels, " / "), t.Columns[j].Key, header(t.Columns[j]), c.Kind.String(),
				c.Value, c.Lo, c.Hi, n, c.NEff, cellText(c))
		}
	}
	return g.writeCSV(w, withHeader)
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
