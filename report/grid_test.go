package report

import (
	"strings"
	"testing"
)

// One Grid in every format: groups span their run of columns (text once
// over the first, LaTeX as \multicolumn, Markdown folded into the
// headers), Align fixes each column, and a ruled grid has a dash line and
// no trailing blanks.
func TestGridModel(t *testing.T) {
	g := &Grid{
		Header: []string{"model", "n", "rate", "note"},
		Groups: []string{"", "E1", "E1", ""},
		Align:  []Align{AlignLeft, AlignRight, AlignRight, AlignNone},
		Ruled:  true,
	}
	g.Add("a|b", 12, 0.5, "")
	g.Add("c", 3, P(0.0004), "x & y")
	for _, tc := range []struct {
		format string
		write  func(*strings.Builder)
		want   string
	}{
		{"text", func(b *strings.Builder) { g.WriteText(b) }, "" +
			"       E1\n" +
			"model   n    rate  note\n" +
			"------------------------\n" +
			"a|b    12     0.5\n" +
			"c       3  4.0e-4  x & y\n"},
		{"md", g.writeMarkdown, "" +
			"| model | E1: n | E1: rate | note |\n" +
			"| :-- | --: | --: |---|\n" +
			"| a\\|b | 12 | 0.5 |  |\n" +
			"| c | 3 | 4.0e-4 | x & y |\n"},
		{"latex", g.writeLaTeX, "" +
			"\\begin{tabular}{lrrl}\n\\toprule\n" +
			" & \\multicolumn{2}{c}{E1} &  \\\\\n\\cmidrule(lr){2-3}\n" +
			"model & n & rate & note \\\\\n\\midrule\n" +
			"a|b & 12 & 0.5 &  \\\\\n" +
			"c & 3 & 4.0e-4 & x \\& y \\\\\n" +
			"\\bottomrule\n\\end{tabular}\n"},
		{"html", func(b *strings.Builder) { g.writeHTML(b, "") }, "" +
			"<table>\n<thead>\n<tr><th></th><th colspan=\"2\">E1</th><th></th></tr>\n" +
			"<tr><th>model</th><th>n</th><th>rate</th><th>note</th></tr>\n</thead>\n<tbody>\n" +
			"<tr><td>a|b</td><td class=\"num\">12</td><td class=\"num\">0.5</td><td></td></tr>\n" +
			"<tr><td>c</td><td class=\"num\">3</td><td class=\"num\">4.0e-4</td><td>x &amp; y</td></tr>\n" +
			"</tbody>\n</table>\n"},
	} {
		var b strings.Builder
		tc.write(&b)
		if b.String() != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.format, b.String(), tc.want)
		}
	}
	g.ColSpec = "lrrp{3cm}"
	var b strings.Builder
	g.writeLaTeX(&b)
	if !strings.HasPrefix(b.String(), "\\begin{tabular}{lrrp{3cm}}\n") {
		t.Errorf("ColSpec not used:\n%s", b.String())
	}
}

// Without Ruled, text keeps the layout the command results always had:
// no rule, and an empty last cell leaves its separator.
func TestGridTextUnruled(t *testing.T) {
	g := plainGrid("a", "b")
	g.Add("x", "")
	g.Add("yy", "z")
	var b strings.Builder
	g.WriteText(&b)
	if want := "a   b\nx   \nyy  z\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
