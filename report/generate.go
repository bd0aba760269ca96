package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/outfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Job is one run of the whole report: its data (a ledger, or the paper's
// design simulated with a seed), its directory and the hooks through which
// the caller sees what happens.
type Job struct {
	In   string             // ledger to report on; "" simulates the paper design with Seed
	Read ledger.ReadOptions // how In is read (format, grader, strictness, warnings); Columns is set here
	// ReadDone, if set, is called once In is read, before the analysis
	// (a command flushes its count of ledger warnings there).
	ReadDone func()
	Seed     uint64 // run seed of the simulation (without In)
	// Simulate, if set, replaces SimulatePaper (tests use a small ledger).
	Simulate func(seed uint64) (*analysis.Data, error)
	Out      string // the report's directory
	Meta     Meta   // versions; Source, Seed and Episodes are filled in

	// Analyze computes the tables and hypotheses of the data.
	Analyze func(*analysis.Data) *paper.Results
	// Extra, if set, adds more files to the report's unit (a
	// preregistration's results) and returns their names; the ledger is
	// then read with every column, since it may use any.
	Extra func(u *outfile.Unit, d *analysis.Data) ([]string, error)
	// Warn receives every warning of the analysis and of the figures.
	Warn func(msg string)
}

// Written is what Generate wrote.
type Written struct {
	Files, Figures, Episodes int
}

// Generate writes the report of job into job.Out as one unit: every file
// (WriteAllTo, the figures, job.Extra's) is staged beside its final path
// and all are renamed into place together once all are written, so a
// failure leaves the directory as it was, and removes it if this run
// created it. A figure that cannot be drawn is left out with a warning;
// a failure to write one fails the report.
//
// The directory is locked (outfile.TryLockFile, on its identity) while the
// report is written, from the start if it exists and otherwise from its
// creation, so that two reports into one directory never mix their files:
// the second refuses.
func Generate(job Job) (w Written, err error) {
	var held *outfile.Lock
	lock := func() error {
		if held != nil {
			return nil
		}
		l, err := outfile.TryLockFile(job.Out)
		if errors.Is(err, outfile.ErrLocked) {
			return fmt.Errorf("%s: another report is being written into it; wait for it, or write to another directory", job.Out)
		}
		if err == nil {
			held = l
		}
		return err
	}
	defer func() {
		if uerr := held.Unlock(); err == nil && uerr != nil {
			err = uerr
		}
	}()
	if _, serr := os.Stat(job.Out); serr == nil {
		if err := lock(); err != nil {
			return Written{}, err
		}
	}
	d, meta, err := loadData(job)
	if err != nil {
		return Written{}, err
	}
	res := job.Analyze(d)
	for _, w := range res.Warnings {
		job.Warn(w)
	}
	var ins []string
	if job.In != "" {
		ins = ledger.Files(job.In)
	}
	u := outfile.NewUnit(ins...)
	defer u.Abort() // no-op after Commit
	figs, skipped, err := DrawFigures(u, res, filepath.Join(job.Out, "figures"))
	if err != nil {
		var pe *fs.PathError
		var ie *outfile.InputError
		if errors.As(err, &pe) || errors.As(err, &ie) {
			return Written{}, err
		}
		job.Warn(fmt.Sprintf("figures: %v", err))
	}
	for _, s := range skipped {
		job.Warn(s)
	}
	files, err := WriteAllTo(u, job.Out, res, meta, figs)
	if err != nil {
		return Written{}, err
	}
	if job.Extra != nil {
		more, err := job.Extra(u, d)
		if err != nil {
			return Written{}, err
		}
		files = append(files, more...)
	}
	// Staging made the directory, if it was missing.
	if err := lock(); err != nil {
		return Written{}, err
	}
	if err := u.Commit(); err != nil {
		return Written{}, err
	}
	return Written{Files: len(files), Figures: len(figs), Episodes: meta.Episodes}, nil
}

// loadData reads job.In, or simulates the paper design, and completes the
// report's metadata.
func loadData(job Job) (*analysis.Data, Meta, error) {
	meta := job.Meta
	if job.In == "" {
		sim := job.Simulate
		if sim == nil {
			sim = SimulatePaper
		}
		d, err := sim(job.Seed)
		if err != nil {
			return nil, meta, fmt.Errorf("simulate: %w", err)
		}
		meta.Source = "the paper design, simulated (limbo-analyze simulate --design paper)"
		meta.Seed = strconv.FormatUint(job.Seed, 10)
		meta.Episodes = d.Len()
		return d, meta, nil
	}
	opt := job.Read
	// Only the columns the tables and figures use: a user's ledger that
	// lacks some gets the tables it can support, with warnings.
	opt.Columns = append(paper.Columns(paper.TableNumbers), "seed")
	if job.Extra != nil {
		opt.Columns = nil
	}
	d, err := paper.ReadData(job.In, opt)
	if job.ReadDone != nil {
		job.ReadDone()
	}
	if err != nil {
		return nil, meta, err
	}
	meta.Source = job.In
	meta.Seed = RunSeed(job.In, d)
	meta.Episodes = d.Len()
	return d, meta, nil
}

// SimulatePaper runs the paper's design in-process with seed on every
// core and returns its graded episodes in design order.
func SimulatePaper(seed uint64) (*analysis.Data, error) {
	d := &analysis.Data{}
	err := design.Episodes("paper", seed, runtime.GOMAXPROCS(0), func(ep *ledger.Episode) error {
		d.Append(ep) // a copy: design.Episodes reuses ep
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// RunSeed is the run seed of the ledger at in: the one its sidecar
// records, else the one all its episodes share ("" if none).
func RunSeed(in string, d *analysis.Data) string {
	if s := design.SidecarSeed(in); s != "" {
		return s
	}
	return d.RunSeed()
}

// Tools is Table 11's source: the sandbox's native tool catalogue.
func Tools() []paper.Tool {
	var out []paper.Tool
	for _, s := range sandbox.Catalogue(ledger.ContractNative) {
		out = append(out, paper.Tool{Name: s.Name, Write: s.Write, Description: s.Description})
	}
	return out
}
