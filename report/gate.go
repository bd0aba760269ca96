package report

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis"
)

// GateVerdict is a gate's verdict in one line: pass or FAIL first, then the
// estimate, the discordant pairs, Tango's 90% score interval (Newcombe's
// beside it) and the non-inferiority test.
func GateVerdict(r *analysis.GateResult) string {
	verdict := "pass"
	if !r.Pass {
		verdict = "FAIL"
	}
	return fmt.Sprintf("gate %s: %s candidate − baseline = %+.4f over %d pairs (%d worse, %d better; 90%% score [%.4f, %.4f], Newcombe [%.4f, %.4f]); H0 worse by ≥ %g: p = %.4g",
		verdict, r.Spec.Outcome, r.Diff, r.Pairs, r.B, r.C, r.Lo90, r.Hi90, r.NewcombeLo, r.NewcombeHi, r.Spec.Margin, r.P)
}
