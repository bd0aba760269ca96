package frame

import (
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// UnknownColumnError reports a column name that the ledger does not have,
// with the closest names it does have.
type UnknownColumnError struct {
	Name    string
	Similar []string // up to three close matches, closest first
}

func (e *UnknownColumnError) Error() string {
	msg := "unknown column " + strings.TrimSpace(quote(e.Name))
	if len(e.Similar) > 0 {
		msg += " (did you mean " + strings.Join(e.Similar, ", ") + "?)"
	} else {
		msg += " (the schema's columns are listed in docs/ledger.md; extra columns are your file's own)"
	}
	return msg
}

func quote(s string) string { return "\"" + s + "\"" }

// Available lists the columns of r: the schema's, then the names r lists
// (a ColumnNames method) or, for an episode, its extra columns in sorted
// order.
func Available(r Row) []string {
	var out []string
	for _, c := range ledger.EpisodeColumns {
		out = append(out, c.Name)
	}
	if l, ok := r.(interface{ ColumnNames() []string }); ok {
		out = append(out, l.ColumnNames()...)
	}
	if e, ok := r.(*ledger.Episode); ok {
		var extra []string
		for k := range e.Extra {
			extra = append(extra, k)
		}
		slices.Sort(extra)
		out = append(out, extra...)
	}
	return out
}

// CheckColumns returns an UnknownColumnError for the first of names that r
// lacks.
func CheckColumns(r Row, names []string) error {
	for _, n := range names {
		if _, ok := r.Get(n); !ok {
			return &UnknownColumnError{Name: n, Similar: Similar(n, Available(r))}
		}
	}
	return nil
}

// Similar returns up to three names from candidates close to name: by edit
// distance (at most a third of the name's length, minimum 1) or because one
// contains the other.
func Similar(name string, candidates []string) []string {
	type scored struct {
		s string
		d int
	}
	var hits []scored
	ln := strings.ToLower(name)
	limit := max(1, len([]rune(name))/3)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(ln, lc)
		if d <= limit || len(ln) >= 3 && (strings.Contains(lc, ln) || strings.Contains(ln, lc) && len(lc) >= 3) {
			hits = append(hits, scored{c, d})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return a.d - b.d })
	var out []string
	for i := 0; i < len(hits) && i < 3; i++ {
		out = append(out, hits[i].s)
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b
// (in runes): Levenshtein plus transpositions of adjacent characters, the
// commonest typing slip.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
