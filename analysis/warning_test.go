package analysis

import (
	"encoding/json"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
)

// TestWarningText checks that a warning reads and prints as its message
// alone, and encodes in JSON as its code and message (issue 36: programs
// reading a result act on the code, never on the text).
func TestWarningText(t *testing.T) {
	for _, msg := range []string{"only 5 clusters", `a <b> & "c"`, "pseudo-R² ≥ 0", ""} {
		w := Warning{Code: WarnFewClusters, Field: "Cov", Msg: msg}
		if w.String() != msg {
			t.Errorf("String() = %q, want %q", w.String(), msg)
		}
		got, err := json.Marshal([]Warning{w})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := json.Marshal(msg)
		want := `[{"code":"few-clusters","message":` + string(m) + `}]`
		if string(got) != string(want) {
			t.Errorf("JSON %s, want %s", got, want)
		}
	}
}

func TestWarningCodeString(t *testing.T) {
	seen := map[string]WarningCode{}
	for c := WarnMissingRows; c <= WarnAdjusted; c++ {
		s := c.String()
		if s == "" || seen[s] != 0 {
			t.Errorf("code %d: name %q empty or also %d's", int(c), s, int(seen[s]))
		}
		seen[s] = c
	}
	if got := WarningCode(0).String(); got != "WarningCode(0)" {
		t.Errorf("zero code: %q", got)
	}
	if got := (WarnAdjusted + 1).String(); got != "WarningCode(18)" {
		t.Errorf("past the last code: %q", got)
	}
}

// TestWarningCodes checks that the engine sets the code (and the spec
// field its advice concerns) where it makes a warning, so that callers
// classify warnings without reading their text.
func TestWarningCodes(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	for _, tc := range []struct {
		name  string
		run   func() ([]Warning, error)
		code  WarningCode
		field string
	}{
		{"separation", func() ([]Warning, error) {
			r, err := Model(q, ModelSpec{Formula: "duplicated ~ contract + fault_mode"})
			return warningsOf(r, err)
		}, WarnSeparation, "Firth"},
		{"separation, the fitter's", func() ([]Warning, error) {
			r, err := Model(q, ModelSpec{Formula: "duplicated ~ contract + fault_mode"})
			return warningsOf(r, err)
		}, WarnSeparation, ""},
		{"few clusters", func() ([]Warning, error) {
			r, err := Model(q, ModelSpec{Family: "gee", Group: "task", Formula: "eos ~ contract + condition"})
			return warningsOf(r, err)
		}, WarnFewClusters, "Cov"},
		{"singular", func() ([]Warning, error) {
			r, err := Model(q, ModelSpec{Family: "glmm", Formula: "duplicated ~ contract + condition + (1|model) + (1|template)"})
			return warningsOf(r, err)
		}, WarnSingular, ""},
		{"single level", func() ([]Warning, error) {
			r, err := Model(Query{Source: q.Source, Where: `model == "m1"`}, ModelSpec{Formula: "eos ~ contract + model"})
			return warningsOf(r, err)
		}, WarnDroppedTerm, ""},
		{"unmatched", func() ([]Warning, error) {
			r, err := Paired(Query{Source: q.Source, Where: `condition != "guard" || instance < 2`}, PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}})
			if err != nil {
				return nil, err
			}
			return r.Warnings, nil
		}, WarnUnmatched, ""},
	} {
		ws, err := tc.run()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		found := false
		for _, w := range ws {
			found = found || w.Code == tc.code && w.Field == tc.field
		}
		if !found {
			t.Errorf("%s: no %v warning about field %q in %+v", tc.name, tc.code, tc.field, ws)
		}
	}
}

func warningsOf(r *ModelResult, err error) ([]Warning, error) {
	if err != nil {
		return nil, err
	}
	return r.Warnings, nil
}
