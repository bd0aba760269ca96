package prereg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// colUse is a column a preregistration reads, and where.
type colUse struct {
	name, what string
	line       int
}

// levelUse is a level a preregistration names for a column.
type levelUse struct {
	col, level, what string
	line             int
}

func (f *File) uses() ([]colUse, []levelUse) {
	var cols []colUse
	var lvls []levelUse
	addWhere := func(src, what string, line int) {
		if w, err := formula.ParseWhere(src); err == nil {
			for _, c := range w.Columns() {
				cols = append(cols, colUse{c, what, line})
			}
		}
	}
	add := func(c, what string, line int) {
		if c != "" {
			cols = append(cols, colUse{c, what, line})
		}
	}
	for _, x := range f.Derive {
		addWhere(x.Where, "derive "+x.Name, x.Line)
	}
	for _, h := range f.Hypotheses {
		addWhere(h.Population, "hypothesis "+h.ID+": population", h.Line)
		for _, p := range h.Parts {
			what := "hypothesis " + h.ID
			if p.Name != "" {
				what += " part " + p.Name
			}
			e := p.Estimand
			addWhere(p.Population, what+": population", p.Line)
			add(p.ForEach, what+": for_each", p.Line)
			if e.Kind != KindOddsRatio && e.Kind != KindShapley {
				add(p.Outcome, what+": outcome", p.Line)
			}
			for _, c := range []struct{ name, key string }{{e.Weight, "weight"}, {e.Cluster, "cluster"}, {e.Arm, "arm"}, {e.Group, "group"}} {
				add(c.name, what+": estimand."+c.key, e.Line)
			}
			for _, c := range e.PairBy {
				add(c, what+": estimand.pair_by", e.Line)
			}
			if fm, err := formula.Parse(e.Formula); err == nil && e.Formula != "" {
				for _, c := range fm.Columns() {
					add(c, what+": estimand.formula", e.Line)
				}
			}
			if e.Arm != "" {
				for _, l := range []string{e.A, e.B} {
					lvls = append(lvls, levelUse{e.Arm, l, what, e.Line})
				}
			}
			for _, c := range slices.Sorted(mapKeys(e.Refs)) {
				add(c, what+": estimand.refs", e.Line)
				lvls = append(lvls, levelUse{c, e.Refs[c], what + ": estimand.refs", e.Line})
			}
		}
	}
	return cols, lvls
}

// CheckLedger checks f against a ledger: every column it reads exists
// (columns lists the ledger's; nil means the schema's and the episodes'
// extra columns) and every level it names occurs in rows, with close
// matches for both. Levels compared inside where expressions are not
// checked (a population may rightly match nothing in a pilot ledger).
func (f *File) CheckLedger(eps []*ledger.Episode, columns []string) error {
	var errs ErrorList
	errf := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: f.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if columns == nil {
		for _, c := range ledger.EpisodeColumns {
			columns = append(columns, c.Name)
		}
		if len(eps) > 0 {
			for k := range eps[0].Extra {
				columns = append(columns, k)
			}
		}
	}
	var derived []string
	for _, x := range f.Derive {
		derived = append(derived, x.Name)
	}
	all := slices.Concat(columns, derived)
	cols, lvls := f.uses()
	seen := map[string]bool{}
	for _, u := range cols {
		if slices.Contains(all, u.name) {
			continue
		}
		key := fmt.Sprint(u.line, u.name)
		if seen[key] {
			continue
		}
		seen[key] = true
		errf(u.line, "%s: the ledger has no column %q%s", u.what, u.name, didYouMean(u.name, all))
	}
	rows, err := f.Rows(eps)
	if err != nil {
		return err
	}
	levels := map[string][]string{}
	for _, u := range lvls {
		if !slices.Contains(all, u.col) {
			continue // already reported
		}
		have, ok := levels[u.col]
		if !ok {
			have = distinct(rows, u.col)
			levels[u.col] = have
		}
		if !slices.Contains(have, u.level) {
			msg := fmt.Sprintf("%s: %s has no level %q in the ledger", u.what, u.col, u.level)
			if s := frame.Similar(u.level, have); len(s) > 0 {
				msg += " (did you mean " + strings.Join(s, ", ") + "?)"
			} else if len(have) <= 12 {
				msg += " (levels: " + strings.Join(have, ", ") + ")"
			}
			errf(u.line, "%s", msg)
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *Error) int { return a.Line - b.Line })
		return errs
	}
	return nil
}

func distinct(rows []frame.Row, col string) []string {
	seen := map[string]bool{}
	var s []string
	for _, r := range rows {
		v, ok := r.Get(col)
		if !ok || v.Null {
			continue
		}
		if l := v.String(); !seen[l] {
			seen[l] = true
			s = append(s, l)
		}
	}
	slices.Sort(s)
	return s
}
