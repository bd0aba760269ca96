package power

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/internal/jsonnum"
	"github.com/limbo-toolkit/limbo/outfile"
)

// WriteFiles writes power.txt, power.csv and power.json into dir as part
// of u and returns their paths.
func (r *Result) WriteFiles(u *outfile.Unit, dir string) ([]string, error) {
	var files []string
	for _, ft := range [][2]string{{"txt", "text"}, {"csv", "csv"}, {"json", "json"}} {
		name := filepath.Join(dir, "power."+ft[0])
		if err := u.Write(name, func(w io.Writer) error { return r.Write(w, ft[1]) }); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// Write renders the result as text (rounded for people), md, csv or json
// (full precision; NaN is empty in CSV and null in JSON).
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

func fmtShare(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func fmtSize(f float64) string { return "×" + strconv.FormatFloat(f, 'g', -1, 64) }

func (r *Result) source() string {
	if r.Source == "pilot" {
		return "cluster bootstrap of the pilot ledger (templates resampled with replacement), sizes multiply the worlds per template"
	}
	return "simulation of the design, sizes multiply the " + r.Scale
}

// table writes rows as a tab-aligned table, or a Markdown table.
func table(w io.Writer, md bool, head []string, rows [][]string) error {
	if md {
		var b strings.Builder
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
		for range head {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, row := range rows {
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func (r *Result) writeText(w io.Writer, md bool) error {
	h := ""
	if md {
		h = "## "
	}
	fmt.Fprintf(w, "%sPower: %s\n\n", h, r.Title)
	fmt.Fprintf(w, "%s; %d replications per size, seed %d, target %s.\n", r.source(), r.Reps, r.Seed, fmtShare(r.Target))
	fmt.Fprintf(w, "Power is the share of replications whose verdict is \"supported\" (\"partly supported\" is not), with its 95%% Wilson interval.\n\n")
	var rows [][]string
	for _, s := range r.Sizes {
		rows = append(rows, []string{fmtSize(s.Factor), strconv.Itoa(s.Episodes), strconv.Itoa(s.Analysed)})
	}
	if err := table(w, md, []string{"size", "episodes", "simulated"}, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	rows = nil
	for _, hy := range r.Hypotheses {
		for _, p := range hy.Points {
			var vs []string
			for _, v := range Verdicts {
				if n := p.Counts[v]; n > 0 {
					vs = append(vs, fmt.Sprintf("%s %d", v, n))
				}
			}
			id := hy.ID
			if hy.Analysis == "sensitivity" {
				id += " (sensitivity)"
			}
			rows = append(rows, []string{id, fmtSize(p.Factor), fmtShare(p.Power),
				"[" + fmtShare(p.Lo) + ", " + fmtShare(p.Hi) + "]", fmtShare(p.NotComputable), strings.Join(vs, ", ")})
		}
	}
	if err := table(w, md, []string{"hypothesis", "size", "power", "95% MC interval", "not computable", "verdicts"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%sSmallest size reaching power %s\n\n", h, fmtShare(r.Target))
	rows = nil
	for _, hy := range r.Hypotheses {
		s := "not reached in the grid"
		if !math.IsNaN(hy.Reached) {
			s = fmtSize(hy.Reached)
		}
		rows = append(rows, []string{hy.ID, s})
	}
	if err := table(w, md, []string{"hypothesis", "smallest size"}, rows); err != nil {
		return err
	}
	if len(r.Closed) > 0 {
		from := "a base-size replication of the design (replication 1's seed)"
		if r.Source == "pilot" {
			from = "the pilot ledger"
		}
		fmt.Fprintf(w, "\n%sClosed forms (inputs from %s)\n\n", h, from)
		head := []string{"hypothesis", "part", "method"}
		for _, s := range r.Sizes {
			head = append(head, fmtSize(s.Factor))
		}
		rows = nil
		for _, c := range r.Closed {
			row := []string{c.Hypothesis, label(c), c.Method}
			for _, p := range c.Power {
				row = append(row, fmtShare(p))
			}
			rows = append(rows, row)
		}
		if err := table(w, md, head, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
		seen := map[string]bool{}
		for _, c := range r.Closed {
			if c.Method == "n/a" {
				continue
			}
			var in []string
			for _, x := range c.Inputs {
				in = append(in, x.Name+" "+strconv.FormatFloat(x.Value, 'g', 4, 64))
			}
			fmt.Fprintf(w, "- %s %s inputs: %s\n", c.Hypothesis, label(c), strings.Join(in, ", "))
			if !seen[c.Assumptions] {
				seen[c.Assumptions] = true
				fmt.Fprintf(w, "  assumptions: %s\n", c.Assumptions)
			}
		}
		fmt.Fprintln(w, "- n/a: the estimand kind has no closed form here (rates, odds ratios, Shapley shares); read the simulation.")
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	return nil
}

func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeCSV writes one row per hypothesis and size ("simulated") and one
// per closed-form part and size ("closed_form").
func (r *Result) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"row", "source", "scale", "hypothesis", "analysis", "part", "level", "size", "episodes", "reps",
		"supported", "partly_supported", "not_supported", "inconclusive", "not_computable",
		"power", "power_lo", "power_hi", "not_computable_share", "smallest_size", "method", "seed", "target"}
	if err := cw.Write(head); err != nil {
		return err
	}
	common := func(kind string) []string { return []string{kind, r.Source, r.Scale} }
	tail := []string{strconv.FormatUint(r.Seed, 10), num(r.Target)}
	for _, hy := range r.Hypotheses {
		for i, p := range hy.Points {
			row := append(common("simulated"), hy.ID, hy.Analysis, "", "", num(p.Factor), strconv.Itoa(r.Sizes[i].Episodes), strconv.Itoa(r.Reps))
			for _, v := range Verdicts {
				row = append(row, strconv.Itoa(p.Counts[v]))
			}
			row = append(row, num(p.Power), num(p.Lo), num(p.Hi), num(p.NotComputable), num(hy.Reached), "simulation")
			if err := cw.Write(append(row, tail...)); err != nil {
				return err
			}
		}
	}
	for _, c := range r.Closed {
		for i, p := range c.Power {
			row := append(common("closed_form"), c.Hypothesis, "", c.Part, c.Level, num(r.Sizes[i].Factor), strconv.Itoa(r.Sizes[i].Episodes), "",
				"", "", "", "", "", num(p), "", "", "", "", c.Method)
			if err := cw.Write(append(row, tail...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// jnum is the JSON number of the outputs (null when NaN).
type jnum = jsonnum.Float

func (r *Result) writeJSON(w io.Writer) error {
	type point struct {
		Size          jnum                   `json:"size"`
		Counts        map[prereg.Verdict]int `json:"verdicts"`
		Power         jnum                   `json:"power"`
		Lo            jnum                   `json:"power_lo"`
		Hi            jnum                   `json:"power_hi"`
		NotComputable jnum                   `json:"not_computable"`
	}
	type hyp struct {
		ID       string  `json:"id"`
		Analysis string  `json:"analysis"`
		Points   []point `json:"points"`
		Reached  jnum    `json:"smallest_size"`
	}
	type input struct {
		Name  string `json:"name"`
		Value jnum   `json:"value"`
	}
	type closed struct {
		Hypothesis  string  `json:"hypothesis"`
		Part        string  `json:"part"`
		Level       string  `json:"level,omitempty"`
		Kind        string  `json:"kind"`
		Method      string  `json:"method"`
		Assumptions string  `json:"assumptions,omitempty"`
		Inputs      []input `json:"inputs"`
		Power       []jnum  `json:"power"`
		Reason      string  `json:"reason,omitempty"`
	}
	type size struct {
		Factor   jnum `json:"size"`
		Episodes int  `json:"episodes"`
		Analysed int  `json:"simulated"`
	}
	out := struct {
		Title      string   `json:"title"`
		Source     string   `json:"source"`
		Scale      string   `json:"scale"`
		Reps       int      `json:"reps"`
		Seed       uint64   `json:"seed"`
		Target     jnum     `json:"target"`
		Sizes      []size   `json:"sizes"`
		Hypotheses []hyp    `json:"hypotheses"`
		Closed     []closed `json:"closed_forms"`
		Warnings   []string `json:"warnings"`
	}{Title: r.Title, Source: r.Source, Scale: r.Scale, Reps: r.Reps, Seed: r.Seed, Target: jnum(r.Target),
		Sizes: []size{}, Hypotheses: []hyp{}, Closed: []closed{}, Warnings: append([]string{}, r.Warnings...)}
	for _, s := range r.Sizes {
		out.Sizes = append(out.Sizes, size{jnum(s.Factor), s.Episodes, s.Analysed})
	}
	for _, h := range r.Hypotheses {
		x := hyp{ID: h.ID, Analysis: h.Analysis, Reached: jnum(h.Reached)}
		for _, p := range h.Points {
			x.Points = append(x.Points, point{jnum(p.Factor), p.Counts, jnum(p.Power), jnum(p.Lo), jnum(p.Hi), jnum(p.NotComputable)})
		}
		out.Hypotheses = append(out.Hypotheses, x)
	}
	for _, c := range r.Closed {
		x := closed{Hypothesis: c.Hypothesis, Part: c.Part, Level: c.Level, Kind: c.Kind, Method: c.Method,
			Assumptions: c.Assumptions, Inputs: []input{}, Reason: c.Reason}
		for _, in := range c.Inputs {
			x.Inputs = append(x.Inputs, input{in.Name, jnum(in.Value)})
		}
		for _, p := range c.Power {
			x.Power = append(x.Power, jnum(p))
		}
		out.Closed = append(out.Closed, x)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
