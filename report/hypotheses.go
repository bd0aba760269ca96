package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// Hypotheses renders H1–H6 in format: text and md list each with its
// verdict, prediction, result, rule and warnings; csv and json give every
// statistic at full precision.
func Hypotheses(w io.Writer, hs []*paper.Hypothesis, format string) error {
	switch format {
	case "text":
		var b strings.Builder
		for _, h := range hs {
			fmt.Fprintf(&b, "%s  %s\n    prediction: %s\n    result:     %s\n    rule:       %s\n", h.ID, strings.ToUpper(h.Verdict.String()), h.Prediction, h.Result, h.Rule)
			for _, x := range h.Warnings {
				fmt.Fprintf(&b, "    warning:    %s\n", x)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	case "md", "markdown":
		var b strings.Builder
		markdownHypotheses(&b, hs)
		_, err := io.WriteString(w, b.String())
		return err
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"hypothesis", "verdict", "statistic", "value", "lo", "hi", "n"})
		for _, h := range hs {
			for _, s := range h.Stats {
				cw.Write([]string{h.ID, h.Verdict.String(), s.Name, full(s.Value), full(s.Lo), full(s.Hi), fmt.Sprint(s.N)})
			}
		}
		cw.Flush()
		return cw.Error()
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(hypothesesJSON(hs))
	}
	return fmt.Errorf("unknown format %q (want text, md, csv or json)", format)
}

type jsonStat struct {
	Name  string `json:"name"`
	Value num    `json:"value"`
	Lo    num    `json:"lo"`
	Hi    num    `json:"hi"`
	N     int    `json:"n"`
}

type jsonHyp struct {
	ID         string     `json:"id"`
	Prediction string     `json:"prediction"`
	Rule       string     `json:"rule"`
	Result     string     `json:"result"`
	Verdict    string     `json:"verdict"`
	Stats      []jsonStat `json:"stats"`
	Warnings   []string   `json:"warnings"`
}

func hypothesesJSON(hs []*paper.Hypothesis) []jsonHyp {
	out := []jsonHyp{}
	for _, h := range hs {
		j := jsonHyp{ID: h.ID, Prediction: h.Prediction, Rule: h.Rule, Result: h.Result, Verdict: h.Verdict.String(), Warnings: h.Warnings, Stats: []jsonStat{}}
		if j.Warnings == nil {
			j.Warnings = []string{}
		}
		for _, s := range h.Stats {
			j.Stats = append(j.Stats, jsonStat{s.Name, num(s.Value), num(s.Lo), num(s.Hi), int(s.N)})
		}
		out = append(out, j)
	}
	return out
}

func markdownHypotheses(b *strings.Builder, hs []*paper.Hypothesis) {
	for _, h := range hs {
		fmt.Fprintf(b, "- **%s** — *%s*. %s\n  - Result: %s\n  - Rule: %s\n", h.ID, h.Verdict.String(), h.Prediction, h.Result, h.Rule)
		for _, x := range h.Warnings {
			fmt.Fprintf(b, "  - Warning: %s\n", x)
		}
	}
}
