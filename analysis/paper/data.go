package paper

import (
	"cmp"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

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
func require(d *table.Data, what string, cols []string) error {
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

// each yields every row of h (a slice of them would take 16 bytes a row).
func (h *held) each() iter.Seq[row] {
	return func(yield func(row) bool) {
		for i := range h.d.Len() {
			if !yield(row{h, i}) {
				return
			}
		}
	}
}

// filter returns the rows of h for which keep is true. keep runs once a
// row, its answers noted in a bitset (a bit a row), so that the result is
// allocated at its size: on millions of rows appending would copy the
// slice again and again, and a second pass of keep costs as much as the
// first.
func (h *held) filter(keep func(e row) bool) []row {
	n := h.d.Len()
	set := make([]uint64, (n+63)/64)
	count := 0
	for i := range n {
		if keep(row{h, i}) {
			set[i>>6] |= 1 << (i & 63)
			count++
		}
	}
	out := make([]row, 0, count)
	for w, x := range set {
		for x != 0 {
			out = append(out, row{h, w<<6 | bits.TrailingZeros64(x)})
			x &= x - 1
		}
	}
	return out
}

// filterEps returns the rows of eps for which keep is true.
func filterEps(eps []row, keep func(e row) bool) []row {
	var out []row
	for _, e := range eps {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// indices returns the row numbers of rs.
func indices(rs []row) []int32 {
	out := make([]int32, len(rs))
	for k, r := range rs {
		out[k] = int32(r.i)
	}
	return out
}

// in reports whether s is one of set.
func in(s string, set ...string) bool { return slices.Contains(set, s) }

// The fault catalogue's families (ledger.FaultFamilies; docs/simulation.md,
// Fault modes) as sets of modes: not executed, what an immediate read-back
// resolves and what it cannot, the committed faults, redelivery and the
// control; and the late modes by their delay (Table 6).
var (
	preModes        = familyModes(ledger.FamilyPre)
	resolvesModes   = familyModes(ledger.FamilyResolves)
	lateModes       = familyModes(ledger.FamilyLate)
	redeliveryModes = familyModes(ledger.FamilyRedelivery)
	controlModes    = familyModes(ledger.FamilyNone)
	cannotModes     = ledger.FaultNames(func(m ledger.FaultMode) bool { return m.ReadBack() == ledger.ReadBackCannot })
	committedModes  = ledger.CommittedFaults
	fixedDelayModes = ledger.FaultNames(func(m ledger.FaultMode) bool { return m.Delay == ledger.DelayFixed })
	drawnDelayModes = ledger.FaultNames(func(m ledger.FaultMode) bool { return m.Delay == ledger.DelayDrawn })
)

func familyModes(family string) []string {
	return ledger.FaultNames(func(m ledger.FaultMode) bool { return m.Family == family })
}

// shown keeps the modes of the paper's Table 2 and, of the others, those
// eps has: a mode added to the catalogue gets a column or a row where
// there is data for it, and the paper's tables keep theirs.
func shown(modes []ledger.FaultMode, eps []row) []ledger.FaultMode {
	var out []ledger.FaultMode
	for _, m := range modes {
		if !m.Inferred || slices.ContainsFunc(eps, func(e row) bool { return e.FaultMode() == m.Name }) {
			out = append(out, m)
		}
	}
	return out
}

// isPre reports a not-executed world (timeout_pre, http500_pre, and the
// honest not-executed errors).
func isPre(mode string) bool { return in(mode, preModes...) }

// faulted reports an episode whose assigned fault fired.
func faulted(e row) bool { return !in(e.FaultMode(), controlModes...) && e.FaultFired() }

// committedOrRedelivery reports a fired committed fault or redelivery.
func committedOrRedelivery(e row) bool {
	return e.FaultFired() && (in(e.FaultMode(), committedModes...) || in(e.FaultMode(), redeliveryModes...))
}

// paperModels is the order in which the paper lists models; others follow
// alphabetically.
var paperModels = []string{"gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash", "gpt-4.1", "mai-code-1.1-flash", "unnamed-8", "unnamed-9"}

// ordered returns the distinct values of key over eps, in pref order first
// and then alphabetically.
func ordered(eps []row, key func(row) string, pref []string) []string {
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

func modelOf(e row) string     { return e.Model() }
func harnessOf(e row) string   { return e.Harness() }
func conditionOf(e row) string { return e.Condition() }

// b2f is 1 for true.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Outcome selectors.
func dupOf(e row) float64 { return b2f(e.Duplicated()) }
func tsOf(e row) float64  { return b2f(e.TaskSuccess()) }
func eosOf(e row) float64 { return b2f(e.EOS()) }

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

// joined is a grouping function: the texts of columns x and y of a row
// joined by sep, built once per pair of dictionary codes, since a string
// built per row would allocate on each of millions of rows. The memo is
// indexed by the codes (+1: a column not read has code −1), as the
// columns joined have few levels.
func joined(x, y func(*held) table.Strings, sep string) func(row) string {
	var memo [][]string
	return func(e row) string {
		a, b := x(e.h), y(e.h)
		i, j := int(a.Code(e.i))+1, int(b.Code(e.i))+1
		if i >= len(memo) {
			memo = append(memo, make([][]string, i+1-len(memo))...)
		}
		if j >= len(memo[i]) {
			memo[i] = append(memo[i], make([]string, j+1-len(memo[i]))...)
		}
		s := memo[i][j]
		if s == "" { // never a joined text, which holds sep
			s = a.Value(e.i) + sep + b.Value(e.i)
			memo[i][j] = s
		}
		return s
	}
}

// Column selectors for joined.
func modelCol(h *held) table.Strings     { return h.model }
func conditionCol(h *held) table.Strings { return h.condition }
func contractCol(h *held) table.Strings  { return h.contract }
func harnessCol(h *held) table.Strings   { return h.harness }
func faultModeCol(h *held) table.Strings { return h.faultMode }

// groupBy returns the rows of eps by key, each group in eps's order. The
// groups are counted first and allocated at their size: appending would
// copy millions of rows again and again.
func groupBy(eps []row, key func(row) string) map[string][]row {
	counts := map[string]int{}
	for _, e := range eps {
		counts[key(e)]++
	}
	out := make(map[string][]row, len(counts))
	for k, n := range counts {
		out[k] = make([]row, 0, n)
	}
	for _, e := range eps {
		k := key(e)
		out[k] = append(out[k], e)
	}
	return out
}
