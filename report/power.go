package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/power"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/outfile"
)

// PowerFormats are the formats of a power analysis.
var PowerFormats = []string{"text", "md", "csv", "json", "latex"}

// Power renders a power analysis as text (rounded for people), md,
// latex (its tables as booktabs tabulars, the prose as comments), csv or
// json (full precision; NaN is empty in CSV and null in JSON).
func Power(w io.Writer, r *power.Result, format string) error {
	switch format {
	case "text", "md", "latex":
		var b strings.Builder
		powerText(&b, r, format)
		_, err := io.WriteString(w, b.String())
		return err
	case "csv":
		return powerGrid(r).WriteCSV(w)
	case "json":
		return writeJSONEscaped(w, powerJSON(r))
	}
	return fmt.Errorf("format %q: want text, md, latex, csv or json", format)
}

// PowerFiles writes power.txt, power.csv and power.json into dir as part
// of u and returns their paths.
func PowerFiles(u *outfile.Unit, dir string, r *power.Result) ([]string, error) {
	return writeFormats(u, dir, "power", [][2]string{{"txt", "text"}, {"csv", "csv"}, {"json", "json"}},
		func(w io.Writer, format string) error { return Power(w, r, format) })
}

// writeFormats writes one file per {extension, format} of files into dir
// as part of u, named base.extension and rendered by render in that
// format, and returns their paths in that order.
func writeFormats(u *outfile.Unit, dir, base string, files [][2]string, render func(w io.Writer, format string) error) ([]string, error) {
	var paths []string
	for _, ft := range files {
		name := filepath.Join(dir, base+"."+ft[0])
		if err := u.Write(name, func(w io.Writer) error { return render(w, ft[1]) }); err != nil {
			return nil, err
		}
		paths = append(paths, name)
	}
	return paths, nil
}

func powerShare(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func powerSize(f float64) string { return "×" + strconv.FormatFloat(f, 'g', -1, 64) }

func powerSource(r *power.Result) string {
	if r.Source == "pilot" {
		return "cluster bootstrap of the pilot ledger (templates resampled with replacement), sizes multiply the worlds per template"
	}
	return "simulation of the design, sizes multiply the " + r.Scale
}

func powerText(b *strings.Builder, r *power.Result, format string) {
	d := doc{b, format}
	d.heading("Power: " + r.Title)
	d.line("")
	d.line(fmt.Sprintf("%s; %d replications per size, seed %d, target %s.", powerSource(r), r.Reps, r.Seed, powerShare(r.Target)))
	d.line(`Power is the share of replications whose verdict is "supported" ("partly supported" is not), with its 95% Wilson interval.`)
	d.line("")
	sizes := plainGrid("size", "episodes", "simulated")
	for _, s := range r.Sizes {
		sizes.Add(powerSize(s.Factor), s.Episodes, s.Analysed)
	}
	d.table(sizes)
	d.line("")
	points := plainGrid("hypothesis", "size", "power", "95% MC interval", "not computable", "verdicts")
	for _, hy := range r.Hypotheses {
		for _, p := range hy.Points {
			var vs []string
			for _, v := range power.Verdicts {
				if n := p.Counts[v]; n > 0 {
					vs = append(vs, fmt.Sprintf("%s %d", v, n))
				}
			}
			id := hy.ID
			if hy.Analysis == "sensitivity" {
				id += " (sensitivity)"
			}
			points.Add(id, powerSize(p.Factor), powerShare(p.Power),
				"["+powerShare(p.Lo)+", "+powerShare(p.Hi)+"]", powerShare(p.NotComputable), strings.Join(vs, ", "))
		}
	}
	d.table(points)
	d.line("")
	d.heading("Smallest size reaching power " + powerShare(r.Target))
	d.line("")
	reached := plainGrid("hypothesis", "smallest size")
	for _, hy := range r.Hypotheses {
		s := "not reached in the grid"
		if !math.IsNaN(hy.Reached) {
			s = powerSize(hy.Reached)
		}
		reached.Add(hy.ID, s)
	}
	d.table(reached)
	if len(r.Closed) > 0 {
		from := "a base-size replication of the design (replication 1's seed)"
		if r.Source == "pilot" {
			from = "the pilot ledger"
		}
		d.line("")
		d.heading("Closed forms (inputs from " + from + ")")
		d.line("")
		head := []string{"hypothesis", "part", "method"}
		for _, s := range r.Sizes {
			head = append(head, powerSize(s.Factor))
		}
		closed := plainGrid(head...)
		for _, c := range r.Closed {
			row := []any{c.Hypothesis, c.Label(), c.Method}
			for _, p := range c.Power {
				row = append(row, powerShare(p))
			}
			closed.Add(row...)
		}
		d.table(closed)
		d.line("")
		seen := map[string]bool{}
		for _, c := range r.Closed {
			if c.Method == "n/a" {
				continue
			}
			var in []string
			for _, x := range c.Inputs {
				in = append(in, x.Name+" "+strconv.FormatFloat(x.Value, 'g', 4, 64))
			}
			d.line(fmt.Sprintf("- %s %s inputs: %s", c.Hypothesis, c.Label(), strings.Join(in, ", ")))
			if !seen[c.Assumptions] {
				seen[c.Assumptions] = true
				d.line("  assumptions: " + c.Assumptions)
			}
		}
		d.line("- n/a: the estimand kind has no closed form here (rates, odds ratios, Shapley shares); read the simulation.")
	}
	for _, x := range r.Warnings {
		d.warning(x)
	}
}

// powerGrid is the CSV form: one row per hypothesis and size
// ("simulated") and one per closed-form part and size ("closed_form").
func powerGrid(r *power.Result) *Grid {
	g := &Grid{Header: []string{"row", "source", "scale", "hypothesis", "analysis", "part", "level", "size", "episodes", "reps",
		"supported", "partly_supported", "not_supported", "inconclusive", "not_computable",
		"power", "power_lo", "power_hi", "not_computable_share", "smallest_size", "method", "seed", "target"}}
	tail := []any{strconv.FormatUint(r.Seed, 10), r.Target}
	for _, hy := range r.Hypotheses {
		for i, p := range hy.Points {
			row := []any{"simulated", r.Source, r.Scale, hy.ID, hy.Analysis, "", "", p.Factor, r.Sizes[i].Episodes, r.Reps}
			for _, v := range power.Verdicts {
				row = append(row, p.Counts[v])
			}
			row = append(row, p.Power, p.Lo, p.Hi, p.NotComputable, hy.Reached, "simulation")
			g.Add(append(row, tail...)...)
		}
	}
	for _, c := range r.Closed {
		for i, p := range c.Power {
			row := []any{"closed_form", r.Source, r.Scale, c.Hypothesis, "", c.Part, c.Level, r.Sizes[i].Factor, r.Sizes[i].Episodes, "",
				"", "", "", "", "", p, "", "", "", "", c.Method}
			g.Add(append(row, tail...)...)
		}
	}
	return g
}

type powerPointJSON struct {
	Size          fnum                   `json:"size"`
	Counts        map[prereg.Verdict]int `json:"verdicts"`
	Power         fnum                   `json:"power"`
	Lo            fnum                   `json:"power_lo"`
	Hi            fnum                   `json:"power_hi"`
	NotComputable fnum                   `json:"not_computable"`
}

type powerHypJSON struct {
	ID       string           `json:"id"`
	Analysis string           `json:"analysis"`
	Points   []powerPointJSON `json:"points"`
	Reached  fnum             `json:"smallest_size"`
}

type powerInputJSON struct {
	Name  string `json:"name"`
	Value fnum   `json:"value"`
}

type powerClosedJSON struct {
	Hypothesis  string           `json:"hypothesis"`
	Part        string           `json:"part"`
	Level       string           `json:"level,omitempty"`
	Kind        string           `json:"kind"`
	Method      string           `json:"method"`
	Assumptions string           `json:"assumptions,omitempty"`
	Inputs      []powerInputJSON `json:"inputs"`
	Power       []fnum           `json:"power"`
	Reason      string           `json:"reason,omitempty"`
}

type powerSizeJSON struct {
	Factor   fnum `json:"size"`
	Episodes int  `json:"episodes"`
	Analysed int  `json:"simulated"`
}

type powerResultJSON struct {
	Title      string            `json:"title"`
	Source     string            `json:"source"`
	Scale      string            `json:"scale"`
	Reps       int               `json:"reps"`
	Seed       uint64            `json:"seed"`
	Target     fnum              `json:"target"`
	Sizes      []powerSizeJSON   `json:"sizes"`
	Hypotheses []powerHypJSON    `json:"hypotheses"`
	Closed     []powerClosedJSON `json:"closed_forms"`
	Warnings   []string          `json:"warnings"`
}

func powerJSON(r *power.Result) powerResultJSON {
	out := powerResultJSON{Title: r.Title, Source: r.Source, Scale: r.Scale, Reps: r.Reps, Seed: r.Seed, Target: fnum(r.Target),
		Sizes: []powerSizeJSON{}, Hypotheses: []powerHypJSON{}, Closed: []powerClosedJSON{}, Warnings: append([]string{}, r.Warnings...)}
	for _, s := range r.Sizes {
		out.Sizes = append(out.Sizes, powerSizeJSON{fnum(s.Factor), s.Episodes, s.Analysed})
	}
	for _, h := range r.Hypotheses {
		x := powerHypJSON{ID: h.ID, Analysis: h.Analysis, Reached: fnum(h.Reached)}
		for _, p := range h.Points {
			x.Points = append(x.Points, powerPointJSON{fnum(p.Factor), p.Counts, fnum(p.Power), fnum(p.Lo), fnum(p.Hi), fnum(p.NotComputable)})
		}
		out.Hypotheses = append(out.Hypotheses, x)
	}
	for _, c := range r.Closed {
		x := powerClosedJSON{Hypothesis: c.Hypothesis, Part: c.Part, Level: c.Level, Kind: c.Kind, Method: c.Method,
			Assumptions: c.Assumptions, Inputs: []powerInputJSON{}, Reason: c.Reason}
		for _, in := range c.Inputs {
			x.Inputs = append(x.Inputs, powerInputJSON{in.Name, fnum(in.Value)})
		}
		for _, p := range c.Power {
			x.Power = append(x.Power, fnum(p))
		}
		out.Closed = append(out.Closed, x)
	}
	return out
}
