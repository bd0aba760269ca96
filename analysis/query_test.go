package analysis

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
)

// splitLedger writes the CLI ledger as two CSV files (first rows, then the
// rest), to read as one ledger.
func splitLedger(t *testing.T, at int) []string {
	t.Helper()
	b, err := os.ReadFile(cliLedger)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	dir := t.TempDir()
	parts := []string{lines[0] + strings.Join(lines[1:at], ""), lines[0] + strings.Join(lines[at:], "")}
	var paths []string
	for i, p := range parts {
		path := filepath.Join(dir, []string{"a.csv", "b.csv"}[i])
		if err := os.WriteFile(path, []byte(strings.TrimSuffix(p, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// TestQuerySources checks that the same analyses give the same results
// from one file, from the file split in two (pairs straddle the split, and
// the episode-id pass reads both files), and from the episodes in memory.
func TestQuerySources(t *testing.T) {
	var eps []*ledger.Episode
	err := ledger.ReadEpisodes(cliLedger, ledger.ReadOptions{}, func(ep *ledger.Episode) error {
		c := *ep
		eps = append(eps, &c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The ledger as columns: appended, and read from Parquet, whose
	// episode ids the pairing reads again from the file.
	pq := filepath.Join(t.TempDir(), "cli.parquet")
	ledgertest.WriteParquet(t, pq, eps)
	fromParquet, err := table.Read(pq, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// (That such a file is read by columns, ids not held, is
	// table.TestReadParquetColumns's.)
	all := make([]int32, len(eps))
	for i := range all {
		all[i] = int32(i)
	}
	sources := map[string]Query{
		"one file":          {Source: &table.Files{Paths: []string{cliLedger}}},
		"two files":         {Source: &table.Files{Paths: splitLedger(t, 200)}},
		"in memory":         {Source: table.Episodes(eps)},
		"columns":           {Source: table.Held(table.NewData(eps), nil)},
		"columns by rows":   {Source: table.Held(table.NewData(eps), nil), rowPath: true},
		"columns, a subset": {Source: table.Held(table.NewData(eps), all)},
		"columns, Parquet":  {Source: table.Held(fromParquet, nil)},
	}
	type run func(q Query) (any, error)
	for _, tc := range []struct {
		name string
		run  run
	}{
		{"rates", func(q Query) (any, error) {
			q.Weight, q.Where = "weight", "fault_fired"
			r, err := Rates(q, RatesSpec{Outcome: "duplicated", By: []string{"contract", "model"}, Cluster: "task"})
			if r != nil {
				r.Warnings = nil
			}
			return r, err
		}},
		// pair_key alone leaves several episodes per key and arm (one per
		// contract): the matching needs the episode ids.
		{"paired", func(q Query) (any, error) {
			r, err := Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}})
			return r, err
		}},
		{"shapley", func(q Query) (any, error) {
			return Shapley(q, ShapleySpec{Formula: "duplicated ~ contract + condition + model"})
		}},
	} {
		var want any
		for _, name := range []string{"one file", "two files", "in memory", "columns", "columns by rows", "columns, a subset", "columns, Parquet"} {
			got, err := tc.run(sources[name])
			if err != nil {
				t.Fatalf("%s from %s: %v", tc.name, name, err)
			}
			if want == nil {
				want = got
			} else if !reflect.DeepEqual(got, want) {
				t.Errorf("%s from %s:\n%+v\nwant (one file)\n%+v", tc.name, name, got, want)
			}
		}
	}
}

// TestSpecErrors checks that mistakes in a query or spec are SpecErrors
// (usage errors for a command) and failures of the data are not.
func TestSpecErrors(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	for _, tc := range []struct {
		name string
		err  error
		spec bool
		msg  string
	}{
		{"where syntax", errOf(Rates(Query{Source: q.Source, Where: "fault_fired &"}, RatesSpec{Outcome: "eos"})), true, "use && or ||"},
		{"where types", errOf(Rates(Query{Source: q.Source, Where: "condition == 3"}, RatesSpec{Outcome: "eos"})), true, "cannot compare"},
		{"no input", errOf(Rates(Query{}, RatesSpec{Outcome: "eos"})), true, "no input"},
		{"by twice", errOf(Rates(q, RatesSpec{Outcome: "eos", By: []string{"model", "model"}})), true, "By lists model twice"},
		{"paired test", errOf(Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}, Test: "fisher"})), true, "want exact, midp"},
		{"tost weighted", errOf(TOST(Query{Source: q.Source, Weight: "weight"}, TOSTSpec{Outcome: "eos", Arm: "condition", A: "guard", B: "aware"})), true, "unweighted"},
		{"model family", errOf(Model(q, ModelSpec{Family: "probit", Formula: "eos ~ model"})), true, "want binomial, poisson or gaussian"},
		{"shapley random", errOf(Shapley(q, ShapleySpec{Formula: "eos ~ model + (1|task)"})), true, "remove (1|task)"},
		{"unknown column", errOf(Rates(q, RatesSpec{Outcome: "eos", By: []string{"condtion"}})), false, `unknown column "condtion"`},
		{"unknown level", errOf(Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "vanila", PairBy: []string{"pair_key"}})), false, "levels present: aware, guard, vanilla"},
		{"constant outcome", errOf(Model(Query{Source: q.Source, Where: `fault_mode == "none"`}, ModelSpec{Formula: "duplicated ~ model"})), false, "always false"},
	} {
		var se *SpecError
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if errors.As(tc.err, &se) != tc.spec || !strings.Contains(tc.err.Error(), tc.msg) {
			t.Errorf("%s: %v (spec error %v), want %q (spec error %v)", tc.name, tc.err, errors.As(tc.err, &se), tc.msg, tc.spec)
		}
	}
}

func errOf[R any](_ R, err error) error { return err }

// TestShapleyAliased: task is nested in template, so the template dummies
// are aliased with the task dummies in the full fit. The aliased columns
// are left out with a warning, and the full model's pseudo-R² is that of
// task alone (the same span of columns).
func TestShapleyAliased(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	both, err := Shapley(q, ShapleySpec{Formula: "eos ~ template + task"})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Shapley(q, ShapleySpec{Formula: "eos ~ task"})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(both.Total-alone.Total) > 1e-9*alone.Total {
		t.Errorf("total %v, want task alone's %v", both.Total, alone.Total)
	}
	// One warning says the aliased column of one of the 2² subset fits
	// was left out.
	aliased := func(w Warning) bool {
		return w.Code == WarnDroppedTerm && strings.HasPrefix(w.Msg, "aliased columns left out in 1 of 4 subset fits")
	}
	if !slices.ContainsFunc(both.Warnings, aliased) {
		t.Errorf("warnings %q", both.Warnings)
	}
}
