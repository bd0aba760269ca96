package design

import (
	"errors"
	"slices"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

// Check validates the options before anything is read: the output names,
// the shard, no two outputs the same file and no output one of the inputs
// (an *outfile.InputError). Its errors name the options' fields (Out,
// Jobs, Shard, Episodes), which a command maps to its own options.
func (c *RunOptions) Check() error {
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
	if !slices.Contains(Builtin, c.Design) {
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
