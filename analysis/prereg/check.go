package prereg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
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
	where            bool // compared with in a where expression
}

func (f *File) uses() ([]colUse, []levelUse) {
	var cols []colUse
	var lvls []levelUse
	addWhere := func(src, what string, line int) {
		if w, err := formula.ParseWhere(src); err == nil {
			for _, c := range w.Columns() {
				cols = append(cols, colUse{c, what, line})
			}
			for _, l := range w.Levels() {
				lvls = append(lvls, levelUse{l.Column, l.Value, what, line, true})
			}
		}
	}
	add := func(c, what string, line int) {
		if c != "" {
			cols = append(cols, colUse{c, what, line})
		}
	}
	for _, x := range f.Derive {
		addWhere(x.Where, "derive "+x.Name, orLine(x.WhereLine, x.Line))
	}
	for _, h := range f.Hypotheses {
		addWhere(h.Population, "hypothesis "+h.ID+": population", orLine(h.PopLine, h.Line))
		for _, p := range h.Parts {
			what := "hypothesis " + h.ID
			if p.Name != "" {
				what += " part " + p.Name
			}
			e := p.Estimand
			addWhere(p.Population, what+": population", orLine(p.PopLine, p.Line))
			add(p.ForEach, what+": for_each", p.Line)
			if !e.Kind.fitsFormula() {
				add(p.Outcome, what+": outcome", p.Line)
			}
			for _, c := range []struct{ name, key string }{{e.Weight, "weight"}, {e.Cluster, "cluster"}, {e.Arm, "arm"}, {e.Spec.Group, "group"}, {e.Spec.Order, "order"}} {
				add(c.name, what+": estimand."+c.key, e.Line)
			}
			for _, c := range e.PairBy {
				add(c, what+": estimand.pair_by", e.Line)
			}
			if fm, err := formula.Parse(e.Spec.Formula); err == nil && e.Spec.Formula != "" {
				for _, c := range fm.Columns() {
					add(c, what+": estimand.formula", e.Line)
				}
			}
			if e.Arm != "" {
				for _, l := range []string{e.A, e.B} {
					lvls = append(lvls, levelUse{e.Arm, l, what, e.Line, false})
				}
			}
			if e.Kind == KindOddsRatio || e.Kind == KindCoefficient {
				// A coefficient col[level] (a[x]:b[y] for an interaction)
				// needs the level in the ledger to exist at all.
				for _, c := range termLevels(e.Term) {
					lvls = append(lvls, levelUse{c[0], c[1], what + ": estimand.term", e.at("term"), false})
				}
			}
			for _, c := range slices.Sorted(mapKeys(e.Spec.Refs)) {
				add(c, what+": estimand.refs", e.Line)
				lvls = append(lvls, levelUse{c, e.Spec.Refs[c], what + ": estimand.refs", e.Line, false})
			}
		}
	}
	return cols, lvls
}

// Columns returns the ledger columns f names (in where expressions,
// outcomes, estimands and formulas), each once, sorted; derived columns
// are not among them. The estimators may read others by default (a
// pair key, a cluster), so this is what a ledger must have at least.
func (f *File) Columns() []string {
	cols, _ := f.uses()
	derived := map[string]bool{}
	for _, x := range f.Derive {
		derived[x.Name] = true
	}
	var out []string
	for _, c := range cols {
		if !derived[c.name] && !slices.Contains(out, c.name) {
			out = append(out, c.name)
		}
	}
	slices.Sort(out)
	return out
}

// CheckLedger checks f against a ledger and returns its errors
// (CheckLedgerAll without the warnings).
func (f *File) CheckLedger(d *table.Data, columns []string) error {
	errs, _, err := f.CheckLedgerAll(d, columns)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// CheckLedgerAll checks f against a ledger: every column it reads exists
// (columns lists the ledger's; nil means the schema's and the episodes'
// extra columns) and every level it names occurs in the rows, with close
// matches for both. Estimand levels (arm a and b, refs) must occur. The
// string levels that where expressions (derive, population) compare text
// columns with are sorted by how likely a mistake is (whereLevel): a
// level no valid ledger can hold, or one absent with a close match in the
// ledger, is an error (a mistyped level silently selects nothing); one
// absent without a close match is a warning, and so is a level the
// schema or the paper's design knows that this ledger lacks (a pilot).
// err is a failure to compute a derived column.
func (f *File) CheckLedgerAll(d *table.Data, columns []string) (errs, warns ErrorList, err error) {
	errf := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: f.Path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if columns == nil {
		columns = ledgerColumns(d)
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
	dv, err := f.withDerived(d)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range f.levelProblems(dataLevels(dv), all, lvls) {
		if p.class == levelKnownAbsent || p.class == levelUnknown {
			p.Warning = true
			warns = append(warns, p.Error)
		} else {
			errs = append(errs, p.Error)
		}
	}
	byLine := func(a, b *Error) int { return a.Line - b.Line }
	slices.SortStableFunc(errs, byLine)
	slices.SortStableFunc(warns, byLine)
	return errs, warns, nil
}

// ledgerColumns are the schema's columns and the episodes' extra ones.
func ledgerColumns(d *table.Data) []string {
	var columns []string
	for _, c := range ledger.EpisodeColumns {
		columns = append(columns, c.Name)
	}
	return append(columns, d.ExtraColumns()...)
}

// dataLevels lists the levels of a column of d as distinct does.
func dataLevels(d *table.Data) func(col string) ([]string, bool) {
	return func(col string) ([]string, bool) {
		lv, _, text, err := d.Levels(nil, col)
		if err != nil {
			return nil, true // no such column: no level, as distinct
		}
		return lv, text
	}
}

// How likely a level absent from the ledger is a mistake.
const (
	levelEstimand    = iota // an estimand's level: the estimate needs it
	levelImpossible         // not a value the column can take (a closed schema enum)
	levelTypo               // absent, with a close match in the ledger
	levelUnknown            // absent, no close match, unknown to the schema and the paper
	levelKnownAbsent        // absent, but a value the schema or the paper's design knows
)

// levelProblem is a level the ledger lacks, with its class.
type levelProblem struct {
	*Error
	class int
}

// vocabulary is what the schema and the paper's design know of a
// column's levels; closed says no other value is valid.
func vocabulary(col string) (levels []string, closed bool) {
	for _, e := range []ledger.Enum{ledger.FaultModes, ledger.Contracts, ledger.Recoveries, ledger.WriteClasses, ledger.ReadPaths, ledger.Cues, ledger.AgentFaultNames, ledger.CrashWindows, ledger.GuardNames} {
		if e.Field == col {
			return e.Values, true
		}
	}
	switch col {
	case "harness":
		return ledger.PaperHarnesses, false
	case "condition":
		return ledger.PaperConditions, false
	case "experiment":
		return append(slices.Clone(ledger.PaperExperiments), ledger.ReplayExperiments...), false
	}
	return nil, false
}

// levelProblems checks the levels lvls against the rows: one problem per
// level that no row has, with close matches and its class. Columns not in
// columns are skipped (reported as unknown columns elsewhere), and so are
// where levels of a column that is not text (a type error the parser
// reports).
func (f *File) levelProblems(levels func(col string) ([]string, bool), columns []string, lvls []levelUse) []levelProblem {
	var out []levelProblem
	type seen struct {
		levels []string
		text   bool
	}
	cache := map[string]seen{}
	reported := map[string]bool{}
	for _, u := range lvls {
		if !slices.Contains(columns, u.col) {
			continue
		}
		c, ok := cache[u.col]
		if !ok {
			c.levels, c.text = levels(u.col)
			cache[u.col] = c
		}
		if slices.Contains(c.levels, u.level) || u.where && !c.text {
			continue
		}
		key := fmt.Sprint(u.line, "\x00", u.what, "\x00", u.col, "\x00", u.level)
		if reported[key] {
			continue
		}
		reported[key] = true
		p := levelProblem{Error: &Error{File: f.Path, Line: u.line}}
		if !u.where {
			p.class = levelEstimand
			p.Msg = fmt.Sprintf("%s: %s has no level %q in the ledger", u.what, u.col, u.level)
			if s := frame.Similar(u.level, c.levels); len(s) > 0 {
				p.Msg += " (did you mean " + strings.Join(s, ", ") + "?)"
			} else if len(c.levels) <= 12 {
				p.Msg += " (levels: " + strings.Join(c.levels, ", ") + ")"
			}
			out = append(out, p)
			continue
		}
		vocab, closed := vocabulary(u.col)
		similar := frame.Similar(u.level, c.levels)
		p.Msg = fmt.Sprintf("%s: level %q not in column %s", u.what, u.level, u.col)
		switch {
		case closed && !slices.Contains(vocab, u.level):
			// No valid ledger holds it: suggest from the valid values.
			p.class = levelImpossible
			if similar = frame.Similar(u.level, vocab); len(similar) == 0 {
				p.Msg += " (valid values: " + quoteAll(vocab) + ")"
			}
		case slices.Contains(vocab, u.level):
			p.class = levelKnownAbsent
			p.Msg += " of this ledger (a known level: the population selects no episode with it)"
			similar = nil
		case len(similar) > 0:
			p.class = levelTypo
		default:
			p.class = levelUnknown
		}
		if len(similar) > 0 {
			p.Msg += "; did you mean " + quoteAll(similar) + "?"
		} else if (p.class == levelTypo || p.class == levelUnknown) && len(c.levels) <= 12 {
			p.Msg += " (levels: " + quoteAll(c.levels) + ")"
		}
		out = append(out, p)
	}
	return out
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// WhereLevelProblems checks the string levels that f's where expressions
// (derive, population) compare ledger columns with against the episodes
// and returns the likely mistakes: levels that no valid ledger holds, or
// absent with a close match, or absent and unknown (CheckLedgerAll's
// classes). A level the schema or the paper's design knows that these
// episodes lack is left out: a pilot may rightly lack it. The evaluation
// reports them as warnings (Result.Checks).
func (f *File) WhereLevelProblems(d *table.Data) ErrorList {
	_, lvls := f.uses()
	lvls = slices.DeleteFunc(lvls, func(u levelUse) bool { return !u.where })
	if len(lvls) == 0 {
		return nil
	}
	var out ErrorList
	for _, p := range f.levelProblems(dataLevels(d), ledgerColumns(d), lvls) {
		if p.class != levelKnownAbsent {
			out = append(out, p.Error)
		}
	}
	return out
}

// ReadColumns is the columns to read from the ledger at in (format as
// ledger.FileColumns takes it) to evaluate f: nil, every column, when the
// ledger has every schema column; otherwise the schema columns it has and
// every column f names, so that a column f does not use (platform) is not
// demanded and one it uses is named when missing (docs/ledger.md: a
// command needs only the columns it uses). A ledger whose columns cannot
// be listed without reading it (JSONL) gives nil.
func (f *File) ReadColumns(in, format string) []string {
	have, err := ledger.FileColumns(in, format)
	if err != nil || have == nil {
		return nil // the read names the problem
	}
	complete := true
	for _, c := range ledger.EpisodeColumns {
		// A column group the ledger lacks (Column.Group) leaves it
		// complete: no ledger but one of that design has those columns.
		if c.Group == "" && !slices.Contains(have, c.Name) {
			complete = false
		}
	}
	if complete {
		return nil
	}
	var cols []string
	for _, c := range have {
		if _, ok := ledger.LookupColumn(c); ok {
			cols = append(cols, c)
		}
	}
	for _, c := range f.Columns() {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}
