package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/internal/jsonnum"
	"github.com/limbo-toolkit/limbo/outfile"
)

// PreregFormats are the formats of a preregistration's evaluation.
var PreregFormats = []string{"text", "md", "csv", "json"}

// Prereg renders the evaluation of a preregistration as text (rounded
// for people), md, csv or json (full precision; NaN is empty in CSV and
// null in JSON). Every verdict carries the provenance: in CSV on each
// row, elsewhere once per output.
func Prereg(w io.Writer, r *prereg.Result, format string) error {
	switch format {
	case "text":
		return preregText(w, r, false)
	case "md":
		return preregText(w, r, true)
	case "csv":
		return preregGrid(r).WriteCSV(w)
	case "json":
		return writeJSONEscaped(w, preregJSON(r))
	}
	return fmt.Errorf("format %q: want text, md, csv or json", format)
}

// PreregFiles writes prereg.md, prereg.csv and prereg.json into dir as
// part of u (a report directory) and returns their paths.
func PreregFiles(u *outfile.Unit, dir string, r *prereg.Result) ([]string, error) {
	return writeFormats(u, dir, "prereg", [][2]string{{"md", "md"}, {"csv", "csv"}, {"json", "json"}},
		func(w io.Writer, format string) error { return Prereg(w, r, format) })
}

// preregRound rounds an estimate for people: percent and percentage
// points with one decimal, integers and numbers from 100 whole, others
// with 3 significant digits.
func preregRound(v float64, unit string) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch {
	case unit == "%" || unit == " pp":
		return strconv.FormatFloat(v, 'f', 1, 64) + unit
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// preregP is a verdict's p-value for people: two significant digits,
// scientific below 0.001.
func preregP(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	if p < 1e-3 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

func preregUnit(kind prereg.Kind) string {
	switch kind {
	case prereg.KindRate, prereg.KindShapley:
		return "%"
	case prereg.KindRateDiff, prereg.KindTOST, prereg.KindMcNemar:
		return " pp"
	}
	return ""
}

// coefLabel names a coefficient estimate by its measure, the suffix of
// its statistic's name: OR, RR, ratio or β; for an average contrast,
// "contrast Δ" (points with _pp) or "contrast ratio".
func coefLabel(name string) string {
	switch {
	case strings.HasSuffix(name, "_contrast_diff_pp"):
		return "contrast Δ (pp)"
	case strings.HasSuffix(name, "_contrast_diff"):
		return "contrast Δ"
	case strings.HasSuffix(name, "_contrast_ratio"):
		return "contrast ratio"
	case strings.HasSuffix(name, "_or"):
		return "OR"
	case strings.HasSuffix(name, "_rr"):
		return "RR"
	case strings.HasSuffix(name, "_ratio"):
		return "ratio"
	}
	return "β"
}

// PartSummary is a part's estimate as a person reads it: "OR 2.1 [1.54,
// 2.86], p=2.8e-06 (n=1987)".
func PartSummary(p *prereg.PartResult) string {
	u := preregUnit(p.Kind)
	s := p.Estimate
	var b strings.Builder
	switch p.Kind {
	case prereg.KindOddsRatio:
		b.WriteString("OR ")
	case prereg.KindCoefficient:
		b.WriteString(coefLabel(s.Name) + " ")
	case prereg.KindShapley:
		b.WriteString("share ")
	case prereg.KindRateDiff, prereg.KindTOST:
		b.WriteString("difference ")
	case prereg.KindMcNemar:
		b.WriteString("gain ")
	}
	b.WriteString(preregRound(s.Value, u))
	if !math.IsNaN(s.Lo) {
		fmt.Fprintf(&b, " [%s, %s]", preregRound(s.Lo, u), preregRound(s.Hi, u))
	}
	if !math.IsNaN(s.P) {
		fmt.Fprintf(&b, ", p=%s", preregP(s.P))
	}
	if c := p.CompareTo(); p.Kind == prereg.KindShapley && c != "" {
		fmt.Fprintf(&b, " vs %s %s", c, preregRound(p.Bound, u))
	}
	fmt.Fprintf(&b, " (n=%d)", s.N)
	return b.String()
}

// preregText writes the verdicts as indented text, or (md) as a
// Markdown table, then the warnings and the provenance.
func preregText(w io.Writer, r *prereg.Result, md bool) error {
	var b strings.Builder
	if r.Title != "" {
		if md {
			fmt.Fprintf(&b, "## %s\n\n", r.Title)
		} else {
			fmt.Fprintf(&b, "%s\n\n", r.Title)
		}
	}
	table := plainGrid("Id", "Analysis", "Statement", "Result", "Verdict")
	var notes []string
	for _, v := range r.Verdicts {
		analysis := string(v.Analysis)
		if v.SensitivityOf != "" {
			analysis += " of " + v.SensitivityOf
		}
		var parts []string
		for _, p := range v.Parts {
			label := p.Label()
			s := label + ": " + PartSummary(p)
			if p.Verdict != "" {
				s += " → " + string(p.Verdict)
			} else if p.Reason != "" {
				s += " (" + p.Reason + ")"
			}
			parts = append(parts, s)
			for _, wn := range p.Warnings {
				notes = append(notes, fmt.Sprintf("%s %s: %s", v.ID, label, wn))
			}
		}
		verdict := string(v.Verdict)
		if v.Reason != "" {
			verdict += " (" + v.Reason + ")"
		}
		if md {
			table.Add(oneLine(v.ID), analysis, oneLine(v.Statement), oneLine(strings.Join(parts, "; ")), oneLine(verdict))
			continue
		}
		fmt.Fprintf(&b, "%s  %s  (%s)\n    statement: %s\n", v.ID, strings.ToUpper(string(v.Verdict)), analysis, oneLine(v.Statement))
		if v.Reason != "" {
			fmt.Fprintf(&b, "    reason:    %s\n", v.Reason)
		}
		for i, p := range v.Parts {
			fmt.Fprintf(&b, "    %s\n", parts[i])
			if p.Rule != "" {
				fmt.Fprintf(&b, "        rule: %s\n", p.Rule)
			}
		}
	}
	if md {
		table.writeMarkdown(&b)
	}
	notes = append(notes, r.Checks...)
	if len(notes) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, n := range notes {
			if md {
				b.WriteString("- ")
			} else {
				b.WriteString("  ")
			}
			b.WriteString(n + "\n")
		}
	}
	if p := r.Provenance; p != nil {
		b.WriteString("\nProvenance (of every verdict above):\n")
		for _, kv := range provenanceLines(p) {
			if md {
				fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
			} else {
				fmt.Fprintf(&b, "  %-16s %s\n", kv[0]+":", kv[1])
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine puts a multi-line text (a statement) on one line for a table
// cell or a line of text: every run of newlines, tabs and other control
// characters becomes one space.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, unicode.IsControl), " ")
}

// provenanceLines are the provenance as (name, value) lines for people.
func provenanceLines(p *prereg.Provenance) [][2]string {
	ledgerID := p.LedgerSHA256
	if ledgerID == "" {
		ledgerID = fmt.Sprintf("%d bytes (not hashed: larger than %d MiB or a directory)", p.LedgerBytes, prereg.HashLimit>>20)
	} else {
		ledgerID = "sha256 " + ledgerID
	}
	seed := p.Seed
	if seed == "" {
		seed = "– (not a simulated ledger, or no LEDGER.meta.json beside it)"
	}
	lock := "none"
	if l := p.Lock; l != nil && l.Present {
		lock = fmt.Sprintf("locked %s; matches the file: %v; predates the ledger: %s", l.LockedAt, l.Matches, l.PredatesLedger)
		if l.LedgerCreated != "" {
			lock += fmt.Sprintf(" (ledger created %s, from %s)", l.LedgerCreated, l.LedgerCreatedFrom)
		}
	}
	if p.Lock != nil && p.Lock.Note != "" {
		lock += " (" + p.Lock.Note + ")"
	}
	return [][2]string{
		{"prereg", p.Prereg + " (sha256 " + p.PreregSHA256 + ")"},
		{"ledger", p.Ledger + ", " + ledgerID},
		{"toolkit", p.ToolkitVersion},
		{"seed", seed},
		{"lock", lock},
	}
}

// preregGrid is the long CSV form: one row per statistic of every part,
// the provenance on each.
func preregGrid(r *prereg.Result) *Grid {
	g := &Grid{Header: []string{"id", "analysis", "sensitivity_of", "verdict", "reason", "part", "level", "kind", "statistic", "value", "lo", "hi", "p", "n", "bound", "rule", "part_verdict", "part_reason",
		"prereg", "prereg_sha256", "ledger", "ledger_sha256", "ledger_bytes", "toolkit_version", "seed", "lock_present", "lock_matches", "lock_predates_ledger"}}
	p := r.Provenance
	if p == nil {
		p = &prereg.Provenance{}
	}
	lock := []any{false, "", ""}
	if p.Lock != nil && p.Lock.Present {
		lock = []any{true, p.Lock.Matches, p.Lock.PredatesLedger}
	}
	prov := append([]any{p.Prereg, p.PreregSHA256, p.Ledger, p.LedgerSHA256, p.LedgerBytes, p.ToolkitVersion, p.Seed}, lock...)
	for _, v := range r.Verdicts {
		for _, pr := range v.Parts {
			stats := append([]prereg.Stat{pr.Estimate}, pr.Extra...)
			for i, s := range stats {
				var bound any
				rule, verdict, reason := "", "", ""
				if i == 0 {
					bound, rule, verdict, reason = pr.Bound, pr.Rule, string(pr.Verdict), pr.Reason
				}
				row := []any{v.ID, string(v.Analysis), v.SensitivityOf, string(v.Verdict), v.Reason, pr.Name, pr.Level, string(pr.Kind), s.Name,
					s.Value, s.Lo, s.Hi, s.P, s.N, bound, rule, verdict, reason}
				g.Add(append(row, prov...)...)
			}
		}
	}
	return g
}

// fnum is the JSON number of the preregistration and power outputs
// (null when NaN).
type fnum = jsonnum.Float

type preregStatJSON struct {
	Name  string `json:"name"`
	Value fnum   `json:"value"`
	Lo    fnum   `json:"lo"`
	Hi    fnum   `json:"hi"`
	P     fnum   `json:"p"`
	N     int64  `json:"n"`
}

func statJSON(s prereg.Stat) preregStatJSON {
	return preregStatJSON{s.Name, fnum(s.Value), fnum(s.Lo), fnum(s.Hi), fnum(s.P), s.N}
}

type preregPartJSON struct {
	Name     string             `json:"name"`
	Level    string             `json:"level,omitempty"`
	Kind     string             `json:"kind"`
	Estimate preregStatJSON     `json:"estimate"`
	Bound    fnum               `json:"bound"`
	Extra    []preregStatJSON   `json:"extra"`
	Rule     string             `json:"rule"`
	Verdict  string             `json:"verdict"`
	Reason   string             `json:"reason,omitempty"`
	Warnings []analysis.Warning `json:"warnings"`
}

type preregVerdictJSON struct {
	ID            string             `json:"id"`
	Statement     string             `json:"statement"`
	Analysis      string             `json:"analysis"`
	SensitivityOf string             `json:"sensitivity_of,omitempty"`
	Verdict       string             `json:"verdict"`
	Reason        string             `json:"reason,omitempty"`
	Parts         []preregPartJSON   `json:"parts"`
	Provenance    *prereg.Provenance `json:"provenance"`
}

type preregResultJSON struct {
	Title      string              `json:"title"`
	Hypotheses []preregVerdictJSON `json:"hypotheses"`
	Checks     []string            `json:"checks,omitempty"`
}

func preregJSON(r *prereg.Result) preregResultJSON {
	out := preregResultJSON{Title: r.Title, Hypotheses: []preregVerdictJSON{}, Checks: r.Checks}
	for _, v := range r.Verdicts {
		jv := preregVerdictJSON{ID: v.ID, Statement: v.Statement, Analysis: string(v.Analysis), SensitivityOf: v.SensitivityOf, Verdict: string(v.Verdict), Reason: v.Reason, Provenance: r.Provenance}
		for _, p := range v.Parts {
			jp := preregPartJSON{Name: p.Name, Level: p.Level, Kind: string(p.Kind), Estimate: statJSON(p.Estimate), Bound: fnum(p.Bound), Extra: []preregStatJSON{}, Rule: p.Rule, Verdict: string(p.Verdict), Reason: p.Reason, Warnings: p.Warnings}
			if jp.Warnings == nil {
				jp.Warnings = []analysis.Warning{}
			}
			for _, s := range p.Extra {
				jp.Extra = append(jp.Extra, statJSON(s))
			}
			jv.Parts = append(jv.Parts, jp)
		}
		out.Hypotheses = append(out.Hypotheses, jv)
	}
	return out
}
