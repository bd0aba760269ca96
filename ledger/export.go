package ledger

import (
	"os"
	"path/filepath"

	"github.com/limbo-toolkit/limbo/outfile"
)

// ExportOptions are the settings of Export.
type ExportOptions struct {
	// Read is how the input is read: its Grader grades raw lines, Strict
	// rejects plausibility warnings and extra columns (otherwise a user's
	// extra CSV columns are carried through as strings), Warn gets the
	// warnings. Rows are always reused, never kept.
	Read ReadOptions
	// Format is the output's format: "" for out's extension (a partitioned
	// dataset is Parquet unless told otherwise).
	Format string
	// PartitionBy, when set, makes out a Hive-style dataset partitioned
	// by these columns (see CreatePartitioned).
	PartitionBy []string
	// MaxPartitions bounds a partitioned export; 0 means
	// DefaultMaxPartitions.
	MaxPartitions int
	// ToolkitVersion is recorded in the Parquet files written
	// (WriteOptions).
	ToolkitVersion string
}

// ExportStats is what Export wrote.
type ExportStats struct {
	Episodes   int
	Partitions int // partitioned exports only
	// Nested reports that the calls and effects of raw lines were written
	// (X.calls.parquet and X.effects.parquet, or OUT.calls and
	// OUT.effects of a dataset).
	Nested bool
	// DroppedNested reports raw lines whose calls and effects were not
	// written because the output is not Parquet.
	DroppedNested bool
	// SiblingsDropped names (comma-separated) the calls and effects tables beside the input
	// (X.calls.parquet and X.effects.parquet, or DIR.calls and
	// DIR.effects) that were not carried to the output: only a Parquet
	// episode table exported to one Parquet file carries them.
	SiblingsDropped string
}

// inputSiblings returns the calls and effects tables beside the ledger
// in, if both exist: X.calls.parquet and X.effects.parquet beside a
// Parquet file, DIR.calls and DIR.effects beside a dataset directory.
func inputSiblings(in string) (calls, effects string, dir bool) {
	fi, err := os.Stat(in)
	if err != nil {
		return "", "", false
	}
	if fi.IsDir() {
		calls, effects = PartitionSiblings(in)
		dir = true
	} else if filepath.Ext(in) == ".parquet" {
		calls, effects = SiblingPaths(in)
	} else {
		return "", "", false
	}
	for _, p := range []string{calls, effects} {
		if _, err := os.Stat(p); err != nil {
			return "", "", false
		}
	}
	return calls, effects, dir
}

// Export reads the ledger in (a file, directory or glob; raw lines graded
// by o.Read.Grader) and writes it to out: the episode table and, for raw
// lines exported to Parquet, their calls and effects beside it. The files
// are one unit: all appear or none, nothing is written unless the whole
// input is valid, and siblings an earlier export left beside a Parquet
// episode table are removed when this export has none. With
// o.PartitionBy it writes a partitioned dataset in one pass instead.
func Export(in, out string, o ExportOptions) (ExportStats, error) {
	var extra, groups []string
	if o.Read.Strict {
		// Extra columns are refused; a ledger the scan cannot read is
		// the reader's to report, in its words.
		groups, _ = GroupsOf(in, "")
	} else {
		var err error
		if extra, groups, err = ledgerColumns(in, ""); err != nil {
			return ExportStats{}, err
		}
	}
	o.Read.Reuse = true // rows are written, never kept
	if len(o.PartitionBy) > 0 {
		return exportPartitioned(in, out, o, extra, groups)
	}
	var st ExportStats
	format, err := formatOf(out, o.Format)
	if err != nil {
		return st, &Problem{File: out, Msg: err.Error()}
	}
	u := outfile.NewUnit(Files(in)...)
	defer u.Abort() // no-op after Commit
	wo := WriteOptions{Unit: u, ToolkitVersion: o.ToolkitVersion, Groups: groups}
	w, err := CreateEpisodesWith(out, format, extra, wo)
	if err != nil {
		return st, err
	}
	defer w.Abort()
	// Calls and effects go beside a Parquet output, created when the
	// first raw line arrives.
	var calls CallWriter
	var effects EffectWriter
	defer func() {
		if calls != nil {
			calls.Abort()
		}
		if effects != nil {
			effects.Abort()
		}
	}()
	err = ReadGraded(in, o.Read, func(ep *Episode, raw *RawEpisode) error {
		st.Episodes++
		if err := w.Write(ep); err != nil {
			return err
		}
		if raw == nil {
			return nil
		}
		if format != "parquet" {
			st.DroppedNested = true
			return nil
		}
		if calls == nil {
			cp, ep := SiblingPaths(out)
			var err error
			if calls, err = CreateCallsWith(cp, wo); err != nil {
				return err
			}
			if effects, err = CreateEffectsWith(ep, wo); err != nil {
				return err
			}
		}
		for i := range raw.Calls {
			if err := calls.Write(&raw.Calls[i]); err != nil {
				return err
			}
		}
		for i := range raw.Effects {
			if err := effects.Write(&raw.Effects[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if err := w.Close(); err != nil {
		return st, err
	}
	if cin, ein, isDir := inputSiblings(in); cin != "" && calls == nil {
		if format != "parquet" || isDir {
			st.SiblingsDropped = cin + ", " + ein
		} else {
			// The episode table's calls and effects go with it.
			cp, epath := SiblingPaths(out)
			if calls, err = CreateCallsWith(cp, wo); err != nil {
				return st, err
			}
			if effects, err = CreateEffectsWith(epath, wo); err != nil {
				return st, err
			}
			ro := ReadOptions{Warn: o.Read.Warn, Strict: o.Read.Strict}
			if err := ReadCalls(cin, ro, calls.Write); err != nil {
				return st, err
			}
			if err := ReadEffects(ein, ro, effects.Write); err != nil {
				return st, err
			}
		}
	}
	if calls != nil {
		st.Nested = true
		if err := calls.Close(); err != nil {
			return st, err
		}
		if err := effects.Close(); err != nil {
			return st, err
		}
	} else if format == "parquet" {
		if err := removeSiblings(u, out); err != nil {
			return st, err
		}
	}
	return st, u.Commit()
}

// exportPartitioned is Export with PartitionBy: memory is bounded by the
// PartitionedWriter (a few files open, each buffering only its own rows)
// and the partition count by o.MaxPartitions.
func exportPartitioned(in, out string, o ExportOptions, extra, groups []string) (ExportStats, error) {
	var st ExportStats
	w, err := CreatePartitioned(out, o.PartitionBy, o.Format, extra)
	if err != nil {
		return st, err
	}
	defer w.Abort() // no-op after Close
	w.ToolkitVersion = o.ToolkitVersion
	w.Groups = groups
	if o.MaxPartitions > 0 {
		w.MaxPartitions = o.MaxPartitions
	}
	nested := o.Format == "" || o.Format == "parquet"
	err = ReadGraded(in, o.Read, func(ep *Episode, raw *RawEpisode) error {
		st.Episodes++
		if raw == nil {
			return w.Write(ep)
		}
		if !nested {
			st.DroppedNested = true
			return w.Write(ep)
		}
		return w.WriteNested(ep, raw.Calls, raw.Effects)
	})
	if err != nil {
		return st, err
	}
	st.Partitions = w.Partitions()
	st.Nested = w.Nested()
	if cin, ein, _ := inputSiblings(in); cin != "" && !st.Nested {
		st.SiblingsDropped = cin + ", " + ein
	}
	return st, w.Close()
}

// removeSiblings removes, as part of u, the calls and effects siblings of
// the Parquet episode table out: they would no longer match it.
func removeSiblings(u *outfile.Unit, out string) error {
	cp, ep := SiblingPaths(out)
	if err := u.Remove(cp); err != nil {
		return err
	}
	return u.Remove(ep)
}
