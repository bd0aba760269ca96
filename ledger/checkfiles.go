package ledger

import "fmt"

// CheckFiles checks each ledger of paths as CheckFile does, passing every
// error to report and each file without errors to clean (with its
// summary when summarize), and returns an error counting the errors and
// the files that had them, or clean's first error; nil when all are clean.
func CheckFiles(paths []string, opt ReadOptions, summarize bool, report func(error), clean func(path string, c FileCheck) error) error {
	nerr, bad := 0, 0
	for _, path := range paths {
		c := CheckFile(path, opt, summarize, report)
		if c.Errors > 0 {
			bad++
			nerr += c.Errors
			continue
		}
		if err := clean(path, c); err != nil {
			return err
		}
	}
	if nerr > 0 {
		return fmt.Errorf("%d %s in %d of %d %s", nerr, Plural(nerr, "error", "errors"), bad, len(paths), Plural(len(paths), "file", "files"))
	}
	return nil
}

// Plural is one when n is 1, else many: "1 episode", "2 episodes".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Notes are the lines a command prints after Export wrote out: the count
// of episodes (and partitions, when partitioned), where the calls and
// effects of raw lines went, and a note when they were left out.
func (st ExportStats) Notes(out string, partitioned bool) []string {
	eps := fmt.Sprintf("%d %s", st.Episodes, Plural(st.Episodes, "episode", "episodes"))
	if !partitioned {
		notes := []string{fmt.Sprintf("wrote %s to %s", eps, out)}
		if st.DroppedNested {
			notes = append(notes, fmt.Sprintf("note: calls and effects of the raw lines are kept only in Parquet output (X.calls.parquet, X.effects.parquet); %s has the graded episodes", out))
		}
		return append(notes, st.siblingsNote(out)...)
	}
	notes := []string{fmt.Sprintf("wrote %s in %d %s to %s", eps, st.Partitions, Plural(st.Partitions, "partition", "partitions"), out)}
	if st.Nested {
		calls, effects := PartitionSiblings(out)
		notes = append(notes, fmt.Sprintf("wrote the calls and effects of the raw lines to %s and %s, partitioned the same way", calls, effects))
	}
	if st.DroppedNested {
		notes = append(notes, fmt.Sprintf("note: calls and effects of the raw lines are kept only in Parquet output; %s has the graded episodes", out))
	}
	return append(notes, st.siblingsNote(out)...)
}

// siblingsNote says which calls and effects tables beside the input were
// not carried to out.
func (st ExportStats) siblingsNote(out string) []string {
	if st.SiblingsDropped == "" {
		return nil
	}
	return []string{fmt.Sprintf("note: the calls and effects beside the input (%s) were not carried over: only an export to one Parquet file from a Parquet file carries them, or from the raw JSONL ledger; %s has the episodes", st.SiblingsDropped, out)}
}
