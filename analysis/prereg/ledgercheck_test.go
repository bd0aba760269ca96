package prereg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// TestMalformedAgainstLedger checks every file under
// testdata/malformed-ledger against the committed CLI ledger: each parses,
// and CheckLedger (`prereg check --in`) reports a problem on the line its
// first comment names ("# want: LINE: TEXT") whose message contains TEXT,
// as an error, or as a warning for "# want: LINE: warning: TEXT". Where a
// where expression names the level, the evaluation's WhereLevelProblems
// reports the same problem, unless the level is a known one the ledger
// lacks.
func TestMalformedAgainstLedger(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	files, err := filepath.Glob(filepath.Join("testdata", "malformed-ledger", "*.yaml"))
	if err != nil || len(files) < 12 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(data, []byte("\n"))
			l, text, ok := strings.Cut(strings.TrimPrefix(string(first), "# want: "), ": ")
			line, err := strconv.Atoi(l)
			if !ok || err != nil {
				t.Fatalf("bad want comment %q", first)
			}
			f, err := Parse(path, data)
			if err != nil {
				t.Fatalf("does not parse: %v", err)
			}
			has := func(err error) bool {
				var list ErrorList
				if !errors.As(err, &list) {
					return false
				}
				for _, e := range list {
					if e.File == path && e.Line == line && strings.Contains(e.Msg, text) {
						return true
					}
				}
				return false
			}
			// "warning: TEXT" wants a warning (the check passes), TEXT an error.
			errs, warns, err := f.CheckLedgerAll(table.NewData(eps), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, other := errs, warns
			text, warning := strings.CutPrefix(text, "warning: ")
			if warning {
				want, other = warns, errs
			}
			if !has(want) {
				t.Errorf("CheckLedgerAll: no problem (warning: %v) at line %d containing %q; errors:\n%v\nwarnings:\n%v", warning, line, text, errs, warns)
			}
			if has(other) {
				t.Errorf("the problem is also an error/warning of the other kind")
			}
			if err := f.CheckLedger(table.NewData(eps), nil); has(err) == warning {
				t.Errorf("CheckLedger returns %v", err)
			}
			known := strings.Contains(text, "a known level")
			if strings.Contains(text, "not in column") && has(f.WhereLevelProblems(table.NewData(eps))) == known {
				t.Errorf("WhereLevelProblems: want the problem reported: %v (a known level absent from a pilot is not)", !known)
			}
		})
	}
}

// TestWhereLevelsValid: levels that exist, numbers, booleans, derived
// columns and orderings raise nothing, and a level typo warns at
// evaluation time without changing the verdicts.
func TestWhereLevelsValid(t *testing.T) {
	in := cliCSV
	eps := ledgertest.ReadEpisodes(t, in)
	src := `prereg: 1
derive:
  - {name: late, where: 'fault_mode in ("timeout_late")'}
hypotheses:
  - id: H1
    statement: s
    population: 'fault_fired && fault_mode != "none" && team == "red" && difficulty > 1 && late == false && model >= "m2" && reversible == true'
    outcome: duplicated
    estimand: {kind: rate}
    rule: {direction: below, bound: 5}
`
	f, err := Parse("ok.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckLedger(table.NewData(eps), nil); err != nil {
		t.Errorf("valid levels: %v", err)
	}
	if p := f.WhereLevelProblems(table.NewData(eps)); p != nil {
		t.Errorf("valid levels at evaluation: %v", p)
	}
	good, err := f.Run("ok.yaml", table.NewData(eps), in, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(good.Checks) != 0 {
		t.Errorf("checks %v", good.Checks)
	}

	typo, err := Parse("typo.yaml", []byte(strings.Replace(src, `team == "red"`, `team == "redd"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := typo.Run("typo.yaml", table.NewData(eps), in, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	want := `typo.yaml:7: hypothesis H1: population: level "redd" not in column team; did you mean "red"?`
	if len(r.Checks) != 1 || r.Checks[0] != want {
		t.Errorf("checks %q, want [%q]", r.Checks, want)
	}
	if w := r.Warnings(); len(w) == 0 || w[0] != "warning: "+want {
		t.Errorf("warnings %q", w)
	}
	// The typo selects nothing: the verdict is not computable, not a
	// silent verdict on other episodes.
	if v := r.Verdicts[0].Verdict; v != NotComputable {
		t.Errorf("verdict %q on an empty population", v)
	}
}
