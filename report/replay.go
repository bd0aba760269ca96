package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/replay"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/plots"
)

// ReplayJob is one run of the agent-side study's report (report --design
// replay): its data (a ledger of the replay design, or the design
// simulated with Seed), its directory, and what the report records.
type ReplayJob struct {
	In       string             // ledger to report on; "" simulates the replay design with Seed
	Read     ledger.ReadOptions // how In is read
	ReadDone func()             // called once In is read
	Seed     uint64
	// Simulate makes the data without In (replay.Simulate; tests use a
	// smaller run).
	Simulate func(seed uint64) (*table.Data, error)
	Out      string
	Meta     Meta
	Warn     func(msg string)
}

// GenerateReplay writes the replay study's report into job.Out as one
// unit, as Generate writes the paper's: report.md (provenance, Tables
// R1–R3, the figure, the hypotheses R1–R9 of the embedded
// preregistration), tables/ (each table in every format), figures/ (the
// figure as PNG and SVG), figure-data/ (its numbers) and prereg.md, .csv
// and .json. The same ledger or seed gives the same bytes.
func GenerateReplay(job ReplayJob) (w Written, err error) {
	unlock, err := claimOut(job.Out, job.In)
	if err != nil {
		return Written{}, err
	}
	defer func() {
		if uerr := unlock(); err == nil && uerr != nil {
			err = uerr
		}
	}()
	d, meta, err := loadReplay(job)
	if err != nil {
		return Written{}, err
	}
	res, err := replay.Analyze(d)
	if err != nil {
		return Written{}, err
	}
	pf, err := prereg.Replay()
	if err != nil {
		return Written{}, err
	}
	seed := meta.Seed
	pres, err := pf.Run(prereg.ReplayName, d, job.In, seed, meta.Toolkit)
	if err != nil {
		return Written{}, err
	}
	for _, w := range res.Warnings {
		job.Warn(w)
	}
	dir, err := outfile.CreateOwnedDir(job.Out, owner)
	if err != nil {
		return Written{}, err
	}
	defer dir.Abort()
	stage := filepath.Clean(dir.Path())
	var ins []string
	if job.In != "" {
		ins = ledger.Files(job.In)
	}
	u := outfile.NewUnit(ins...)
	defer u.Abort()
	p := &filePutter{u: u, dir: stage}
	for _, t := range res.Tables {
		for _, f := range Formats {
			if err := p.put(filepath.Join("tables", t.ID()+"."+Ext(f)), func(w io.Writer) error { return Table(w, t, f) }); err != nil {
				return Written{}, err
			}
		}
	}
	for _, f := range []string{"csv", "json"} {
		if err := p.put(filepath.Join("figure-data", res.Figure.ID()+"."+Ext(f)), func(w io.Writer) error { return Table(w, res.Figure, f) }); err != nil {
			return Written{}, err
		}
	}
	var figs []Figure
	if fig, err := plots.BuildReplay(res.Figure); err != nil {
		job.Warn(fmt.Sprintf("replay figure: %v", err))
	} else {
		for _, f := range FigureFormats {
			var buf bytes.Buffer
			if err := fig.Write(&buf, f); err != nil {
				return Written{}, fmt.Errorf("figures/%s.%s: %w", fig.Name, f, err)
			}
			name := fig.Name + "." + f
			if err := p.put(filepath.Join("figures", name), func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
				return Written{}, err
			}
			if f == "png" {
				figs = append(figs, Figure{Name: name, Caption: replayCaption, PNG: buf.Bytes()})
			}
		}
	}
	more, err := PreregFiles(u, stage, pres)
	if err != nil {
		return Written{}, err
	}
	if err := p.put("report.md", func(w io.Writer) error { return replayMarkdown(w, res, pres, meta, figs) }); err != nil {
		return Written{}, err
	}
	if err := dir.CommitUnit(u); err != nil {
		return Written{}, &stagedError{err: err, stage: stage, out: job.Out}
	}
	return Written{Files: len(p.files) + len(more), Figures: len(figs), Episodes: meta.Episodes}, nil
}

const replayCaption = "Duplicates, suppressed work and work lost to a replayed error (%) by agent-side fault (rows) and guard (columns), over every world of the replay design."

// loadReplay reads job.In, or simulates the replay design.
func loadReplay(job ReplayJob) (*table.Data, Meta, error) {
	return load(dataSource{In: job.In, Read: job.Read, ReadDone: job.ReadDone, Seed: job.Seed, Simulate: job.Simulate,
		Simulated: "the replay design, simulated (limbo-analyze simulate --design replay)",
		Missing:   "report: no ledger and no simulation of the replay design"}, job.Meta)
}

// replayMarkdown writes report.md of the replay study.
func replayMarkdown(w io.Writer, res *replay.Results, pres *prereg.Result, meta Meta, figs []Figure) error {
	var b strings.Builder
	markdownHead(&b, "LIMBO agent-side replay report", meta, res.Warnings)
	for _, t := range res.Tables {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", t.Title, t.Caption)
		markdownBody(&b, t)
		b.WriteString("\n")
	}
	markdownFigures(&b, "Figure", figs)
	b.WriteString("## Hypotheses (the embedded preregistration, prereg.md)\n\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return preregText(w, pres, true)
}
