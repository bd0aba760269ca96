package prereg

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// TestEngineErrorsNameKeys checks that an engine error a preregistration
// meets names the preregistration's keys (estimand.pair_by), not the
// engine's spec fields (PairBy) or a command's flags (--pair-by).
func TestEngineErrorsNameKeys(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	for _, tc := range []struct{ name, estimand, want string }{
		{"pair_by holds the arm", "{kind: mcnemar, arm: condition, a: guard, b: vanilla, pair_by: [pair_key, condition]}",
			"estimand.pair_by must not contain the estimand.arm column condition"},
		{"absent level", "{kind: mcnemar, arm: condition, a: nosuch, b: vanilla, pair_by: [pair_key, contract]}",
			`estimand.a nosuch: no episode has condition = "nosuch" after where`},
		{"cbind response of a Poisson model", `{kind: coefficient, fit: glm, distribution: poisson, formula: "cbind(tool_calls, 1) ~ contract", term: "contract[native]"}`,
			"estimand.formula: a cbind(successes, failures) response is binomial; the family is poisson"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "prereg: 1\ntitle: keys\nhypotheses:\n  - id: K\n    statement: keys\n    outcome: eos\n    estimand: " + tc.estimand + "\n    rule: {direction: above}\n"
			v := evaluate(t, "keys.yaml", []byte(src), eps).Verdicts[0]
			if v.Verdict != NotComputable || !strings.Contains(v.Reason, tc.want) || strings.Contains(v.Reason, "--") || strings.Contains(v.Reason, "PairBy") {
				t.Errorf("verdict %q, reason %q; want %s naming %q", v.Verdict, v.Reason, NotComputable, tc.want)
			}
		})
	}
}
