package prereg

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/limbo-toolkit/limbo/internal/jsonnum"
)

// Write renders the result as text (rounded for people), md, csv or json
// (full precision; NaN is empty in CSV and null in JSON). Every verdict
// carries the provenance: in CSV on each row, elsewhere once per output.
func (r *Result) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return r.writeText(w, false)
	case "md":
		return r.writeText(w, true)
	case "csv":
		return r.writeCSV(w)
	case "json":
		return r.writeJSON(w)
	}
	return fmt.Errorf("format %q: want text, md, csv or json", format)
}

func round(v float64, unit string) string {
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

func fmtP(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	if p < 1e-3 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

func unitOf(kind Kind) string {
	switch kind {
	case KindRate, KindShapley:
		return "%"
	case KindRateDiff, KindTOST, KindMcNemar:
		return " pp"
	}
	return ""
}

// coefLabel names a coefficient estimate by its measure (statName):
// OR, RR, ratio or β.
func coefLabel(name string) string {
	switch {
	case strings.HasSuffix(name, "_or"):
		return "OR"
	case strings.HasSuffix(name, "_rr"):
		return "RR"
	case strings.HasSuffix(name, "_ratio"):
		return "ratio"
	}
	return "β"
}

// Summary is a part's estimate as a person reads it.
func (p *PartResult) Summary() string {
	u := unitOf(p.Kind)
	s := p.Estimate
	var b strings.Builder
	switch p.Kind {
	case KindOddsRatio:
		b.WriteString("OR ")
	case KindCoefficient:
		b.WriteString(coefLabel(s.Name) + " ")
	case KindShapley:
		b.WriteString("share ")
	case KindRateDiff, KindTOST:
		b.WriteString("difference ")
	case KindMcNemar:
		b.WriteString("gain ")
	}
	b.WriteString(round(s.Value, u))
	if !math.IsNaN(s.Lo) {
		fmt.Fprintf(&b, " [%s, %s]", round(s.Lo, u), round(s.Hi, u))
	}
	if !math.IsNaN(s.P) {
		fmt.Fprintf(&b, ", p=%s", fmtP(s.P))
	}
	if p.Kind == KindShapley && p.part.Rule != nil && p.part.Rule.CompareTo != "" {
		fmt.Fprintf(&b, " vs %s %s", p.part.Rule.CompareTo, round(p.Bound, u))
	}
	fmt.Fprintf(&b, " (n=%d)", s.N)
	return b.String()
}

func (r *Result) writeText(w io.Writer, md bool) error {
	var b strings.Builder
	if md {
		if r.Title != "" {
			fmt.Fprintf(&b, "## %s\n\n", r.Title)
		}
		b.WriteString("| Id | Analysis | Statement | Result | Verdict |\n|---|---|---|---|---|\n")
	} else if r.Title != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Title)
	}
	var notes []string
	for _, v := range r.Verdicts {
		analysis := string(v.Analysis)
		if v.SensitivityOf != "" {
			analysis += " of " + v.SensitivityOf
		}
		var parts []string
		for _, p := range v.Parts {
			label := partLabel(p)
			s := label + ": " + p.Summary()
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
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(v.ID), analysis, mdCell(v.Statement), mdCell(strings.Join(parts, "; ")), mdCell(verdict))
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
		for _, kv := range p.lines() {
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

func mdCell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

// oneLine puts a multi-line text (a statement) on one line for a table
// cell or a line of text: every run of newlines, tabs and other control
// characters becomes one space.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, unicode.IsControl), " ")
}

func (p *Provenance) lines() [][2]string {
	ledgerID := p.LedgerSHA256
	if ledgerID == "" {
		ledgerID = fmt.Sprintf("%d bytes (not hashed: larger than %d MiB or a directory)", p.LedgerBytes, HashLimit>>20)
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

func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func (r *Result) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "analysis", "sensitivity_of", "verdict", "reason", "part", "level", "kind", "statistic", "value", "lo", "hi", "p", "n", "bound", "rule", "part_verdict", "part_reason",
		"prereg", "prereg_sha256", "ledger", "ledger_sha256", "ledger_bytes", "toolkit_version", "seed", "lock_present", "lock_matches", "lock_predates_ledger"})
	p := r.Provenance
	if p == nil {
		p = &Provenance{}
	}
	lock := []string{"false", "", ""}
	if p.Lock != nil && p.Lock.Present {
		lock = []string{"true", strconv.FormatBool(p.Lock.Matches), p.Lock.PredatesLedger}
	}
	prov := append([]string{p.Prereg, p.PreregSHA256, p.Ledger, p.LedgerSHA256, strconv.FormatInt(p.LedgerBytes, 10), p.ToolkitVersion, p.Seed}, lock...)
	for _, v := range r.Verdicts {
		for _, pr := range v.Parts {
			stats := append([]Stat{pr.Estimate}, pr.Extra...)
			for i, s := range stats {
				bound, rule, verdict, reason := "", "", "", ""
				if i == 0 {
					bound, rule, verdict, reason = num(pr.Bound), pr.Rule, string(pr.Verdict), pr.Reason
				}
				row := []string{v.ID, string(v.Analysis), v.SensitivityOf, string(v.Verdict), v.Reason, pr.Name, pr.Level, string(pr.Kind), s.Name,
					num(s.Value), num(s.Lo), num(s.Hi), num(s.P), strconv.FormatInt(s.N, 10), bound, rule, verdict, reason}
				if err := cw.Write(append(row, prov...)); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// jnum is the JSON number of the outputs (null when NaN).
type jnum = jsonnum.Float

type jstat struct {
	Name  string `json:"name"`
	Value jnum   `json:"value"`
	Lo    jnum   `json:"lo"`
	Hi    jnum   `json:"hi"`
	P     jnum   `json:"p"`
	N     int64  `json:"n"`
}

func toJ(s Stat) jstat {
	return jstat{s.Name, jnum(s.Value), jnum(s.Lo), jnum(s.Hi), jnum(s.P), s.N}
}

func (r *Result) writeJSON(w io.Writer) error {
	type jpart struct {
		Name     string   `json:"name"`
		Level    string   `json:"level,omitempty"`
		Kind     string   `json:"kind"`
		Estimate jstat    `json:"estimate"`
		Bound    jnum     `json:"bound"`
		Extra    []jstat  `json:"extra"`
		Rule     string   `json:"rule"`
		Verdict  string   `json:"verdict"`
		Reason   string   `json:"reason,omitempty"`
		Warnings []string `json:"warnings"`
	}
	type jverdict struct {
		ID            string      `json:"id"`
		Statement     string      `json:"statement"`
		Analysis      string      `json:"analysis"`
		SensitivityOf string      `json:"sensitivity_of,omitempty"`
		Verdict       string      `json:"verdict"`
		Reason        string      `json:"reason,omitempty"`
		Parts         []jpart     `json:"parts"`
		Provenance    *Provenance `json:"provenance"`
	}
	out := struct {
		Title      string     `json:"title"`
		Hypotheses []jverdict `json:"hypotheses"`
		Checks     []string   `json:"checks,omitempty"`
	}{Title: r.Title, Hypotheses: []jverdict{}, Checks: r.Checks}
	for _, v := range r.Verdicts {
		jv := jverdict{ID: v.ID, Statement: v.Statement, Analysis: string(v.Analysis), SensitivityOf: v.SensitivityOf, Verdict: string(v.Verdict), Reason: v.Reason, Provenance: r.Provenance}
		for _, p := range v.Parts {
			jp := jpart{Name: p.Name, Level: p.Level, Kind: string(p.Kind), Estimate: toJ(p.Estimate), Bound: jnum(p.Bound), Extra: []jstat{}, Rule: p.Rule, Verdict: string(p.Verdict), Reason: p.Reason, Warnings: p.Warnings}
			if jp.Warnings == nil {
				jp.Warnings = []string{}
			}
			for _, s := range p.Extra {
				jp.Extra = append(jp.Extra, toJ(s))
			}
			jv.Parts = append(jv.Parts, jp)
		}
		out.Hypotheses = append(out.Hypotheses, jv)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
