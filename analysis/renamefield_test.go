package analysis

import (
	"errors"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// TestRenameField checks that engine errors name spec fields and that a
// caller's names replace them, keeping the *SpecError (a usage error).
func TestRenameField(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	flags := map[string]string{"PairBy": "--pair-by", "Arm": "--arm", "Outcome": "outcome:"}
	for _, tc := range []struct {
		name         string
		err          error
		plain, named string
	}{
		{"pair_by holds the arm", errOf(Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "vanilla", PairBy: []string{"condition"}})),
			"PairBy must not contain the Arm column condition", "--pair-by must not contain the --arm column condition"},
		{"no outcome", errOf(Rates(q, RatesSpec{})), "Outcome is required", "outcome: is required"},
		{"old field prefix", errOf(Model(q, ModelSpec{Fit: "glx", Formula: "eos ~ model"})), `Fit: "glx": want glm, gee or glmm`, `Fit: "glx": want glm, gee or glmm`},
	} {
		var se *SpecError
		if tc.err == nil || tc.err.Error() != tc.plain || !errors.As(tc.err, &se) {
			t.Errorf("%s: %v, want the *SpecError %q", tc.name, tc.err, tc.plain)
			continue
		}
		r := fieldtext.Rename(tc.err, flags)
		if r.Error() != tc.named || !errors.As(r, &se) {
			t.Errorf("%s: renamed %v, want the *SpecError %q", tc.name, r, tc.named)
		}
	}
}
