package design

import (
	"errors"
	"io"
	"runtime"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

// SimulateConfig is a simulate run as a command line describes it; its
// fields are the flags of `limbo-analyze simulate`.
type SimulateConfig struct {
	Design   string // "paper" or a manifest file
	Seed     uint64
	Out      string // raw JSONL ledger; "-" for stdout
	Episodes string // graded episode table (.parquet, .csv, .jsonl); "" for none
	Jobs     int    // parallel workers; 0 for the number of CPUs
	Shard    string // "I/N", 1 ≤ I ≤ N; "" for the whole run
	Profiles string // profile file; "" for the embedded one
}

// Check validates the configuration before anything is read: the flags'
// values, the output names, no two outputs the same file and no output
// one of the inputs (an *outfile.InputError). Every error is a usage
// error; it names the configuration's fields (Out, Jobs, Shard,
// Episodes), which a command maps to its flags.
func (c *SimulateConfig) Check() error {
	switch {
	case c.Out == "":
		return fieldtext.New("Out", "{Out} is required")
	case c.Jobs < 0:
		return fieldtext.New("Jobs", "{Jobs} must be ≥ 0")
	}
	if _, _, err := ParseShard(c.Shard); err != nil {
		return fieldtext.New("Shard", "{Shard}: %w", err)
	}
	if c.Out != "-" && !ledger.IsJSONLName(c.Out) {
		return fieldtext.New("Out", "{Out} %s: the raw ledger is JSONL; name it .jsonl (or - for stdout)", c.Out)
	}
	if c.Episodes != "" && !ledger.IsLedgerName(c.Episodes) {
		return fieldtext.New("Episodes", "{Episodes} %s: want a .parquet, .csv or .jsonl name", c.Episodes)
	}
	outs := map[string]string{"Out": c.Out, "Episodes": c.Episodes}
	if c.Out != "-" {
		outs["the sidecar"] = MetaPath(c.Out)
	}
	var same *outfile.SameFileError
	if err := outfile.CheckDistinct(outs); errors.As(err, &same) {
		// Out and Episodes are fields, which a command names its own way.
		name := func(k string) string {
			if k == "the sidecar" {
				return k
			}
			return "{" + k + "}"
		}
		return fieldtext.New(same.A, name(same.A)+" and "+name(same.B)+" name the same file %s; one would replace the other", same.Path)
	} else if err != nil {
		return err
	}
	ins := []string{c.Profiles}
	if c.Design != "paper" {
		ins = append(ins, c.Design)
	}
	for _, o := range []string{c.Out, c.Episodes, MetaPath(c.Out)} {
		if o == "" || o == "-" {
			continue
		}
		if err := outfile.CheckNotInput(o, ins...); err != nil {
			return err
		}
	}
	return nil
}

// Simulate loads the design and runs it (Run) with the ledger written to
// Out, or to stdout for "-". start, if set, is called with the number of
// episodes of the run before the first, and returns the function told of
// every n done (nil for none).
func (c *SimulateConfig) Simulate(stdout io.Writer, toolkit string, start func(total int) func(n int)) error {
	sim, err := LoadSimulator(c.Design, c.Profiles, c.Seed)
	if err != nil {
		return err
	}
	jobs := c.Jobs
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	ro := RunOptions{Design: c.Design, Profiles: c.Profiles, Out: c.Out, Stdout: stdout,
		Episodes: c.Episodes, Jobs: jobs, Shard: c.Shard, Toolkit: toolkit}
	if start != nil {
		si, sn, _ := ParseShard(c.Shard)
		lo, hi := ShardRange(sim.Plan.Len(), si, sn)
		ro.Progress = start(hi - lo)
	}
	return Run(sim, ro)
}
