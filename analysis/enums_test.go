package analysis

import (
	"encoding"
	"errors"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// Every enumeration of a spec round-trips through its text form, and an
// unknown name is an error that lists the accepted ones.
func TestSpecEnums(t *testing.T) {
	type textual interface {
		encoding.TextUnmarshaler
		Valid() bool
	}
	for _, tc := range []struct {
		name   string
		values []string
		target func() textual
		want   string // in the error for an unknown name
	}{
		{"stats.PairedTest", names(stats.PairedTests()), func() textual { return new(stats.PairedTest) }, "want exact, midp, chi2 or chi2cc (a binary outcome), t or wilcoxon (a numeric one)"},
		{"stats.Adjustment", names(stats.Adjustments()), func() textual { return new(stats.Adjustment) }, "want holm, bonferroni, bh, by or none"},
		{"stats.PseudoR2", names(stats.PseudoR2s()), func() textual { return new(stats.PseudoR2) }, "want mcfadden, nagelkerke, tjur or coxsnell"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range tc.values {
				x := tc.target()
				if err := x.UnmarshalText([]byte(v)); err != nil || !x.Valid() {
					t.Errorf("%q: %v (valid %v)", v, err, x.Valid())
				}
				if got, err := x.(encoding.TextMarshaler).MarshalText(); err != nil || string(got) != v {
					t.Errorf("%q marshals as %q (%v)", v, got, err)
				}
			}
			x := tc.target()
			err := x.UnmarshalText([]byte("bogus"))
			if err == nil || !strings.Contains(err.Error(), `"bogus"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("unknown name: error %v, want one naming it and saying %q", err, tc.want)
			}
			if x.Valid() {
				t.Error("a failed UnmarshalText left a valid value")
			}
		})
	}
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// A GEE fit that fails on its data reaches the caller as a
// *stats.GEEError, which a caller classifies with errors.As (a
// preregistration falls back to another working correlation).
func TestModelGEEFailureTyped(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}, Where: `task == "` + firstTask(t) + `"`}
	_, err := Model(q, ModelSpec{Family: FamilyGEE, Formula: "eos ~ contract", Group: "task"})
	var ge *stats.GEEError
	if !errors.As(err, &ge) || ge.Reason != "fewer than two clusters" {
		t.Fatalf("one cluster: error %v, want a *stats.GEEError", err)
	}
}

// firstTask is a task of the CLI ledger.
func firstTask(t *testing.T) string {
	t.Helper()
	d, err := table.Read(cliLedger, ledger.ReadOptions{})
	if err != nil || d.Len() == 0 {
		t.Fatal(err)
	}
	return d.Episodes()[0].Task
}
