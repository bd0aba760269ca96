package prereg

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/outfile"
)

// skeleton is what `prereg init` writes without --paper: one hypothesis to
// edit, every required key present.
const skeleton = `# A preregistration: see docs/prereg.md for every key.
prereg: 1
title: "My study"
alpha: 0.05
hypotheses:
  - id: H1
    statement: "The guard keeps duplicates under committed faults below 5%"
    population: 'condition == "guard" && fault_fired'
    outcome: duplicated
    estimand: {kind: rate, cluster: template}
    rule: {direction: below, bound: 5, use: interval}
`

// SkeletonBytes returns a starting preregistration: one hypothesis to
// edit, every required key present.
func SkeletonBytes() []byte { return []byte(skeleton) }

// ReadFile reads and parses the preregistration at path; its problems
// come back as an ErrorList.
func ReadFile(path string) (*File, error) {
	data, err := readlimit.ReadFile(path, "a preregistration", readlimit.Prereg)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Run evaluates f, read from path, on d and attaches the provenance:
// the ledger at in ("" for a simulated run) with its identity, the run
// seed and the state of path's lock, under the toolkit version. The
// ledger's creation time is not looked for (the lock's order is
// "unknown"); RunWith takes it.
func (f *File) Run(path string, d *analysis.Data, in, seed, version string) (*Result, error) {
	return f.RunWith(path, d, RunOptions{In: in, Seed: seed, Version: version})
}

// RunOptions say what a run's provenance records.
type RunOptions struct {
	In      string // the ledger's path, "" for a simulation in process
	Seed    string // the run seed, "" if unknown
	Version string // the toolkit's
	Origin  Origin // when the ledger was created, for the lock's order
}

// RunWith is Run with the ledger's origin: whether the lock predates the
// ledger is decided from o.Origin (CheckLockOrigin).
func (f *File) RunWith(path string, d *analysis.Data, o RunOptions) (*Result, error) {
	res, err := f.Evaluate(d)
	if err != nil {
		return nil, err
	}
	prov := &Provenance{Prereg: path, PreregSHA256: f.SHA256, Ledger: o.In, Seed: o.Seed, ToolkitVersion: o.Version}
	if o.In != "" {
		if prov.LedgerSHA256, prov.LedgerBytes, err = LedgerIdentity(o.In); err != nil {
			return nil, err
		}
	}
	if prov.Lock, err = CheckLockOrigin(path, f.SHA256, o.Origin); err != nil {
		return nil, err
	}
	res.Provenance = prov
	// A mistyped level in a population selects nothing, or everything
	// with !=; say so beside the verdicts (Evaluate itself skips this
	// pass, as power calls it many times on the same design).
	for _, p := range f.WhereLevelProblems(d) {
		res.Checks = append(res.Checks, p.Error())
	}
	return res, nil
}

// Warnings are what a person should see of a run besides its verdicts: a
// preregistration changed after it was locked, and each verdict that is
// not computable with its reason.
func (r *Result) Warnings() []string {
	var out []string
	if p := r.Provenance; p != nil && p.Lock != nil && p.Lock.Present && !p.Lock.Matches {
		out = append(out, fmt.Sprintf("warning: %s changed after it was locked", p.Prereg))
	}
	for _, c := range r.Checks {
		out = append(out, "warning: "+c)
	}
	if p := r.Provenance; p != nil && p.Lock != nil && p.Lock.Present && p.Lock.PredatesLedger == "no" {
		out = append(out, fmt.Sprintf("warning: %s was locked at %s, after the ledger was created (%s, from %s): the registration does not predate the data",
			p.Prereg, p.Lock.LockedAt, p.Lock.LedgerCreated, p.Lock.LedgerCreatedFrom))
	}
	for _, v := range r.Verdicts {
		if v.Verdict == NotComputable {
			out = append(out, fmt.Sprintf("%s not computable: %s", v.ID, v.Reason))
		}
	}
	return out
}

// WriteFiles writes prereg.md, prereg.csv and prereg.json into dir as part
// of u (a report directory) and returns their paths.
func (r *Result) WriteFiles(u *outfile.Unit, dir string) ([]string, error) {
	var files []string
	for _, format := range []string{"md", "csv", "json"} {
		name := filepath.Join(dir, "prereg."+format)
		if err := u.Write(name, func(w io.Writer) error { return r.Write(w, format) }); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}
