package report

import "strings"

// doc writes a result that mixes prose and tables (power, prove) in one
// of the formats for people: text, Markdown (headings as "## ") or LaTeX
// (the tables as booktabs tabulars, the prose as comments).
type doc struct {
	b      *strings.Builder
	format string // text, md or latex
}

// heading is a section title: "## " in Markdown, a comment in LaTeX.
func (d doc) heading(s string) {
	switch d.format {
	case "md":
		d.b.WriteString("## ")
	case "latex":
		d.b.WriteString("% ")
	}
	d.b.WriteString(s + "\n")
}

// line is a line of prose; LaTeX keeps it as a comment and drops blank
// lines.
func (d doc) line(s string) {
	if d.format == "latex" {
		if s != "" {
			d.b.WriteString("% " + strings.ReplaceAll(s, "\n", " ") + "\n")
		}
		return
	}
	d.b.WriteString(s + "\n")
}

// warning is a line that warns: "warning: " in text and Markdown, a
// "% warning: " comment in LaTeX, as the tables' warnings are.
func (d doc) warning(s string) {
	if d.format == "latex" {
		d.b.WriteString("% warning: " + strings.ReplaceAll(s, "\n", " ") + "\n")
		return
	}
	d.b.WriteString("warning: " + s + "\n")
}

func (d doc) table(g *Grid) {
	switch d.format {
	case "md":
		g.writeMarkdown(d.b)
	case "latex":
		g.writeLaTeX(d.b)
	default:
		g.WriteText(d.b) // a strings.Builder does not fail
	}
}
