package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Data is an episode table held in memory for analysis.
type Data struct {
	Episodes []*ledger.Episode
	// Columns names the columns the source carried; nil means every
	// schema column (episodes built in code).
	Columns []string
}

// Read loads the episodes of the ledger at path (JSONL, CSV or Parquet; raw
// JSONL lines are graded with opt.Grader). With opt.Columns, only those of
// them that a CSV or Parquet file carries are read, and Data.Columns names
// them, so that a table whose columns are missing fails with a
// MissingColumnsError while the others are still computed.
func Read(path string, opt ledger.ReadOptions) (*Data, error) {
	if opt.Columns != nil {
		have, err := ledger.FileColumns(path, opt.Format)
		if err != nil {
			return nil, err
		}
		if have != nil {
			opt.Columns = slices.DeleteFunc(slices.Clone(opt.Columns), func(c string) bool { return !slices.Contains(have, c) })
		}
	}
	d := &Data{Columns: opt.Columns}
	err := ledger.ReadEpisodes(path, opt, func(e *ledger.Episode) error {
		d.Episodes = append(d.Episodes, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// MissingColumnsError names the columns a table needs that the data lacks.
type MissingColumnsError struct {
	What    string // "Table 7", "H1"
	Missing []string
}

func (e *MissingColumnsError) Error() string {
	verb := "needs"
	if strings.HasPrefix(e.What, "The ") { // "The hypotheses", "The figures"
		verb = "need"
	}
	return fmt.Sprintf("%s %s column(s) %s, which the episode table lacks", e.What, verb, strings.Join(e.Missing, ", "))
}

// require checks that d carries cols.
func (d *Data) require(what string, cols []string) error {
	if d.Columns == nil {
		return nil
	}
	var miss []string
	for _, c := range cols {
		if !slices.Contains(d.Columns, c) {
			miss = append(miss, c)
		}
	}
	if miss != nil {
		return &MissingColumnsError{What: what, Missing: miss}
	}
	return nil
}

// filter returns the episodes of d for which keep is true.
func (d *Data) filter(keep func(e *ledger.Episode) bool) []*ledger.Episode {
	return filterEps(d.Episodes, keep)
}

// filterEps returns the episodes of eps for which keep is true.
func filterEps(eps []*ledger.Episode, keep func(e *ledger.Episode) bool) []*ledger.Episode {
	var out []*ledger.Episode
	for _, e := range eps {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// in reports whether s is one of set.
func in(s string, set ...string) bool { return slices.Contains(set, s) }

// Fault families (paper-design §4.1).
var (
	resolvesModes  = []string{ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch}
	lateModes      = ledger.LateModes
	cannotModes    = []string{ledger.FaultTimeoutLate, ledger.FaultTimeoutLateTail, ledger.FaultRedelivery}
	committedModes = ledger.CommittedFaults
)

// isPre reports a not-executed world (timeout_pre, http500_pre, and the
// honest not-executed errors).
func isPre(mode string) bool { return strings.HasSuffix(mode, "_pre") }

// faulted reports an episode whose assigned fault fired.
func faulted(e *ledger.Episode) bool { return e.FaultMode != ledger.FaultNone && e.FaultFired }

// committedOrRedelivery reports a fired committed fault or redelivery.
func committedOrRedelivery(e *ledger.Episode) bool {
	return e.FaultFired && (in(e.FaultMode, committedModes...) || e.FaultMode == ledger.FaultRedelivery)
}

// paperModels is the order in which the paper lists models; others follow
// alphabetically.
var paperModels = []string{"gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash", "gpt-4.1", "mai-code-1.1-flash", "unnamed-8", "unnamed-9"}

// ordered returns the distinct values of key over eps, in pref order first
// and then alphabetically.
func ordered(eps []*ledger.Episode, key func(*ledger.Episode) string, pref []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range eps {
		k := key(e)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	rank := func(s string) int {
		if i := slices.Index(pref, s); i >= 0 {
			return i
		}
		return len(pref)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

func modelOf(e *ledger.Episode) string     { return e.Model }
func harnessOf(e *ledger.Episode) string   { return e.Harness }
func conditionOf(e *ledger.Episode) string { return e.Condition }

// b2f is 1 for true.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Outcome selectors.
func dupOf(e *ledger.Episode) float64 { return b2f(e.Duplicated) }
func tsOf(e *ledger.Episode) float64  { return b2f(e.TaskSuccess) }
func eosOf(e *ledger.Episode) float64 { return b2f(e.EOS) }

// Columns are the ledger columns tables ns read (with episode_id), for
// reading only those.
func Columns(ns []int) []string {
	cols := []string{"episode_id"}
	for _, n := range ns {
		for _, c := range TableColumns(n) {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// RunSeed is the ledger's run seed when every episode has the same one
// ("" otherwise, or when the seed column was not read).
func (d *Data) RunSeed() string {
	if len(d.Episodes) == 0 || d.Columns != nil && !slices.Contains(d.Columns, "seed") {
		return ""
	}
	s := d.Episodes[0].Seed
	for _, ep := range d.Episodes {
		if ep.Seed != s {
			return ""
		}
	}
	return strconv.FormatInt(s, 10)
}
