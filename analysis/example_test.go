package analysis_test

import (
	"fmt"
	"path/filepath"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// cliLedger is a small committed CSV ledger (432 worlds × 3 conditions,
// weights 1 and 2).
var cliLedger = filepath.Join("..", "testdata", "cli", "episodes.csv")

// Duplicate rates by contract among the episodes whose fault fired, with
// Kish effective sizes and Wilson intervals.
func ExampleRates() {
	q := analysis.Query{Source: &table.Files{Paths: []string{cliLedger}}, Where: "fault_fired", Weight: "weight"}
	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: "duplicated", By: []string{"contract"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range r.Rows {
		fmt.Printf("%-15s n=%d p=%.3f [%.3f, %.3f] n_eff=%.1f\n", row.Levels[0], row.N, row.P, row.Lo, row.Hi, row.NEff)
	}
	fmt.Println(r.Warnings)
	// Output:
	// keys-everywhere n=142 p=0.132 [0.083, 0.202] n_eff=126.2
	// native          n=143 p=0.332 [0.256, 0.417] n_eff=127.1
	// []
}

// Table 13's guard-versus-vanilla row: exact McNemar on exactly-once
// success, E2 on the native contract, episodes whose (real) fault fired,
// paired by pair_key, Holm over the six comparisons.
func ExamplePaired() {
	eps, err := testfile.ReadJSONLinesGz[ledger.Episode](filepath.Join("..", "testdata", "analysis", "sample.jsonl.gz"))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := analysis.Query{Source: table.Episodes(eps), Where: `experiment == "E2" && contract == "native" && fault_mode != "none" && fault_fired`}
	r, err := analysis.Paired(q, analysis.PairedSpec{
		Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"},
		Levels: []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Comparisons {
		if c.Other == "vanilla" {
			fmt.Printf("guard vs %s: %+.1f pp, %d pairs, Holm p %.2g, raw p %.2g, guard only %d, other only %d\n",
				c.Other, c.GainPP, c.Pairs, c.PAdj, c.P, c.B, c.C)
		}
	}
	// Output:
	// guard vs vanilla: +9.6 pp, 146 pairs, Holm p 0.04, raw p 0.02, guard only 23, other only 9
}

// Equivalence of exactly-once success under vanilla and aware within ±5
// points, on pairs of the same world.
func ExampleTOST() {
	q := analysis.Query{Source: &table.Files{Paths: []string{cliLedger}}}
	r, err := analysis.TOST(q, analysis.TOSTSpec{Outcome: "eos", Arm: "condition", A: "vanilla", B: "aware",
		Margin: 0.05, PairedBy: []string{"pair_key", "contract"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d pairs, diff %.4f, 90%% CI [%.4f, %.4f], p_tost %.3f, equivalent %v\n", r.Pairs, r.Diff, r.Lo90, r.Hi90, r.PTOST, r.Equivalent)
	fmt.Println(r.Warnings)
	// Output:
	// 138 pairs, diff -0.0580, 90% CI [-0.1435, 0.0276], p_tost 0.561, equivalent false
	// [3 vanilla and 3 aware episode(s) without a partner dropped]
}

// A logistic regression of duplicates on the contract and the condition.
func ExampleModel() {
	q := analysis.Query{Source: &table.Files{Paths: []string{cliLedger}}, Where: "fault_fired"}
	r, err := analysis.Model(q, analysis.ModelSpec{Family: "logit", Formula: "duplicated ~ contract + condition",
		Refs: map[string]string{"condition": "vanilla"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n = %d, converged = %v, loglik = %.3f\n", r.N, r.Converged, r.LogLik)
	for _, c := range r.Coefficients {
		fmt.Printf("%-18s %7.3f  OR %.2f [%.2f, %.2f]  p %.2g\n", c.Term, c.Estimate, c.OR, c.ORLo, c.ORHi, c.P)
	}
	// Output:
	// n = 285, converged = true, loglik = -137.546
	// (Intercept)         -1.351  OR 0.26 [0.15, 0.46]  p 4e-06
	// contract[native]     1.061  OR 2.89 [1.57, 5.31]  p 0.00063
	// condition[aware]    -0.282  OR 0.75 [0.39, 1.44]  p 0.39
	// condition[guard]    -1.554  OR 0.21 [0.09, 0.48]  p 0.00023
}

// McFadden's R² of duplicates split among contract, fault mode and model.
func ExampleShapley() {
	q := analysis.Query{Source: &table.Files{Paths: []string{cliLedger}}, Where: "fault_fired"}
	r, err := analysis.Shapley(q, analysis.ShapleySpec{Formula: "duplicated ~ contract + fault_mode + model"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("McFadden R² %.4f over %d episodes\n", r.Total, r.N)
	for _, t := range r.Terms {
		fmt.Printf("%-10s %.4f  %5.1f%%\n", t.Name, t.Value, t.Share)
	}
	fmt.Println(r.Warnings)
	// Output:
	// McFadden R² 0.0497 over 285 episodes
	// contract   0.0385   77.5%
	// fault_mode 0.0051   10.2%
	// model      0.0061   12.3%
	// []
}

// A marginal model of exactly-once success with task clusters (GEE,
// exchangeable working correlation, robust sandwich) and a random-intercept
// GLMM of duplicates.
func ExampleModel_geeAndGLMM() {
	q := analysis.Query{Source: &table.Files{Paths: []string{cliLedger}}}
	g, err := analysis.Model(q, analysis.ModelSpec{Family: "gee", Formula: "eos ~ contract", Group: "task"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("GEE: %d clusters, alpha %.4f, contract[native] OR %.3f, p %.3f\n", g.Clusters, g.Alpha, g.Coefficients[1].OR, g.Coefficients[1].P)
	m, err := analysis.Model(q, analysis.ModelSpec{Family: "glmm", Formula: "duplicated ~ contract + (1|model)"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("GLMM: contract[native] OR %.3f, sd(1|model) %.3f, singular %v\n", m.Coefficients[1].OR, m.Random[0].SD, m.Singular)
	fmt.Println(m.Warnings)
	// Output:
	// GEE: 8 clusters, alpha -0.0018, contract[native] OR 0.659, p 0.126
	// GLMM: contract[native] OR 2.473, sd(1|model) 0.000, singular true
	// [boundary (singular) fit: SD of "model" is 0]
}
