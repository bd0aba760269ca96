package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/plots"
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
	// Simulate makes the data without In (paper.Simulate; tests use a
	// small ledger); report itself only reads and renders.
	Simulate func(seed uint64) (*table.Data, error)
	Out      string // the report's directory
	Meta     Meta   // versions; Source, Seed and Episodes are filled in

	// Analyze computes the tables and hypotheses of the data.
	Analyze func(*table.Data) *paper.Results
	// Extra, if set, adds more files to the report's unit (a
	// preregistration's results) in dir, the report's staging directory,
	// and returns their names; the ledger is then read with every column,
	// since it may use any.
	Extra func(u *outfile.Unit, dir string, d *table.Data) ([]string, error)
	// Warn receives every warning of the analysis and of the figures.
	Warn func(msg string)
}

// Written is what Generate wrote.
type Written struct {
	Files, Figures, Episodes int
}

// Generate writes the report of job into job.Out as one unit: every file
// (WriteAllTo, the figures, job.Extra's) is written into a staging
// directory beside job.Out, which replaces job.Out whole once all are
// written (outfile.CreateDir), so that the directory holds exactly one
// run's outputs, never an earlier report's stale files, and a failure
// leaves it as it was. The directory carries a manifest of the files the
// report wrote; a file that is not one of them refuses the directory,
// before any work and again just before the swap (CheckOut). A figure that cannot be drawn is left out
// with a warning; a failure to write one fails the report. The figure
// that reads no results is drawn while the data is read or simulated, and
// the others while the tables are written.
//
// An existing job.Out is locked (outfile.TryLockFile, on its identity)
// until it is replaced, so that a second report into it refuses rather
// than replacing a report still being written.
func Generate(job Job) (w Written, err error) {
	unlock, err := claimOut(job.Out, job.In)
	if err != nil {
		return Written{}, err
	}
	defer func() {
		if uerr := unlock(); err == nil && uerr != nil {
			err = uerr
		}
	}()
	figures, err := plots.NewRenderer(FigureFormats)
	if err != nil {
		return Written{}, err
	}
	d, meta, err := loadData(job)
	if err != nil {
		return Written{}, err
	}
	dir, err := outfile.CreateOwnedDir(job.Out, owner)
	if err != nil {
		return Written{}, err
	}
	defer dir.Abort() // no-op after Commit
	stage := filepath.Clean(dir.Path())
	var ins []string
	if job.In != "" {
		ins = ledger.Files(job.In)
	}
	u := outfile.NewUnit(ins...)
	defer u.Abort() // no-op after Commit
	w, err = generate(job, figures, u, d, meta, stage)
	if err == nil {
		// The unit syncs its files; the directory's commit does not
		// sync them again.
		err = dir.CommitUnit(u)
	}
	if err != nil {
		return Written{}, &stagedError{err: err, stage: stage, out: job.Out}
	}
	return w, nil
}

// claimOut readies out, a report's directory, for a report of the ledger
// in ("" for none): an existing out is locked (outfile.TryLockFile, on its
// identity) until unlock, so that a second report into it refuses rather
// than replacing a report still being written; a directory holding files
// no report writes, or the input itself, is refused.
func claimOut(out, in string) (unlock func() error, err error) {
	unlock = func() error { return nil }
	if _, serr := os.Stat(out); serr == nil {
		held, lerr := outfile.TryLockFile(out)
		if errors.Is(lerr, outfile.ErrLocked) {
			return nil, fmt.Errorf("%s: another report is being written into it; wait for it, or write to another directory", out)
		}
		if lerr != nil {
			return nil, lerr
		}
		unlock = held.Unlock
	}
	fail := func(err error) (func() error, error) {
		unlock()
		return nil, err
	}
	if err := CheckOut(out); err != nil {
		return fail(err)
	}
	if in != "" {
		// The directory is replaced whole: an input inside it would go.
		if err := outfile.CheckNotInput(out, ledger.Files(in)...); err != nil {
			return fail(err)
		}
	}
	return unlock, nil
}

// stagedError names the report's directory where err names its staging
// directory, whose name the user never gave.
type stagedError struct {
	err        error
	stage, out string
}

func (e *stagedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.stage, filepath.Clean(e.out))
}

func (e *stagedError) Unwrap() error { return e.err }

// generate writes the report's files into the staging directory stage
// as the unit u, drawing the figures with figures; the caller commits u.
func generate(job Job, figures *plots.Renderer, u *outfile.Unit, d *table.Data, meta Meta, stage string) (Written, error) {
	warn := job.Warn
	job.Warn = func(msg string) { warn(strings.ReplaceAll(msg, stage, filepath.Clean(job.Out))) }
	res := job.Analyze(d)
	for _, w := range res.Warnings {
		job.Warn(w)
	}
	// The figures are drawn while the tables are written (they share
	// nothing but the unit); report.md and report.html, which show the
	// figures, come after. The files are WriteAllTo's.
	type drawn struct {
		figs    []Figure
		skipped []string
		err     error
	}
	figsDone := make(chan drawn, 1)
	go func() {
		figs, skipped, err := drawFigures(figures, u, res, filepath.Join(stage, "figures"))
		figsDone <- drawn{figs, skipped, err}
	}()
	cmp := compareAll(res)
	data, derr := writeData(u, stage, res, cmp)
	fd := <-figsDone
	if fd.err != nil {
		var pe *fs.PathError
		var ie *outfile.InputError
		if errors.As(fd.err, &pe) || errors.As(fd.err, &ie) {
			return Written{}, fd.err
		}
		job.Warn(fmt.Sprintf("figures: %v", fd.err))
	}
	if derr != nil {
		return Written{}, derr
	}
	for _, s := range fd.skipped {
		job.Warn(s)
	}
	figs := fd.figs
	files, err := writeDocs(u, stage, res, cmp, meta, figs)
	if err != nil {
		return Written{}, err
	}
	files = append(files, data...)
	if job.Extra != nil {
		more, err := job.Extra(u, stage, d)
		if err != nil {
			return Written{}, err
		}
		files = append(files, more...)
	}
	return Written{Files: len(files), Figures: len(figs), Episodes: meta.Episodes}, nil
}

// loadData reads job.In, or simulates the paper design, and completes the
// report's metadata.
func loadData(job Job) (*table.Data, Meta, error) {
	opt := job.Read
	// Only the columns the tables and figures use: a user's ledger that
	// lacks some gets the tables it can support, with warnings.
	opt.Columns = append(slices.Concat(paper.Columns(paper.TableNumbers), paper.FigureColumns()), "seed")
	if job.Extra != nil {
		opt.Columns = nil
	}
	return load(dataSource{In: job.In, Read: opt, ReadDone: job.ReadDone, Seed: job.Seed, Simulate: job.Simulate,
		Simulated: "the paper design, simulated (limbo-analyze simulate --design paper)",
		Missing:   "report: no ledger (Job.In) and no simulation (Job.Simulate)"}, job.Meta)
}

// dataSource is where a report's episodes come from: the ledger In, read
// with Read, or else Simulate's run with Seed.
type dataSource struct {
	In        string
	Read      ledger.ReadOptions
	ReadDone  func()
	Seed      uint64
	Simulate  func(seed uint64) (*table.Data, error)
	Simulated string // Meta.Source of a simulation: the design and the command that simulates it
	Missing   string // the error when there is neither a ledger nor a simulation
}

// load reads src.In, or runs src.Simulate, and fills in meta's Source,
// Seed and Episodes: the paper report and the replay report alike.
func load(src dataSource, meta Meta) (*table.Data, Meta, error) {
	if src.In == "" {
		if src.Simulate == nil {
			return nil, meta, errors.New(src.Missing)
		}
		d, err := src.Simulate(src.Seed)
		if err != nil {
			return nil, meta, fmt.Errorf("simulate: %w", err)
		}
		meta.Source = src.Simulated
		meta.Seed = strconv.FormatUint(src.Seed, 10)
		meta.Episodes = d.Len()
		return d, meta, nil
	}
	d, err := paper.ReadData(src.In, src.Read)
	if src.ReadDone != nil {
		src.ReadDone()
	}
	if err != nil {
		return nil, meta, err
	}
	meta.Source = src.In
	meta.Seed = paper.RunSeed(src.In, d)
	meta.Episodes = d.Len()
	return d, meta, nil
}

// owner is the report directory's owner: a re-run replaces the files
// its manifest lists and refuses a directory holding anything else
// (outfile.CreateOwnedDir). A directory an earlier version wrote, without
// a manifest, is replaced only when every file in it is a name a report
// writes (reportFile).
var owner = outfile.Owner{Tool: "the report", Legacy: reportFile.MatchString}

// reportFile matches the names of the files a report writes.
var reportFile = regexp.MustCompile(`^(report\.(md|html)|(hypotheses|prereg)\.(txt|md|csv|json)|tables/table[0-9]+(\.paper)?\.(txt|md|tex|csv|json)|figures/figure[0-9]+\.(png|svg)|figure-data/figure[0-9]+\.(csv|json))$`)

// CheckOut returns an *outfile.ForeignError when dir, a report's output
// directory, holds a file a report did not write (nil when it holds none
// or does not exist): Generate would refuse it.
func CheckOut(dir string) error { return outfile.CheckOwned(dir, owner) }
