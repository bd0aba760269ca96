package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/stats"
)

// TestPreregCoefficientMatchesModel: a coefficient estimand on a
// simulated ledger reads the very numbers `model` prints for the same
// specification (Poisson with an interaction, GEE and GLMM with a random
// slope, Gaussian with its t interval), so the preregistration agrees
// with R wherever `model` does (stats, mixed).
func TestPreregCoefficientMatchesModel(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "study.jsonl")
	if code, _, stderr := runCmd(t, "simulate", "--design", "../../analysis/prereg/testdata/study-design.json", "--seed", "1", "--out", ledger); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	tests := []struct {
		name     string
		estimand string // YAML flow mapping
		model    []string
		term     string
		ratio    bool
	}{
		{"poisson glm interaction",
			`{kind: coefficient, fit: glm, distribution: poisson, formula: "tool_calls ~ condition * model", refs: {condition: vanilla}, term: "condition[guard]:model[mai-code-1.1-flash]"}`,
			[]string{"--fit", "glm", "--family", "poisson", "--formula", "tool_calls ~ condition * model", "--ref", "condition=vanilla"},
			"condition[guard]:model[mai-code-1.1-flash]", true},
		{"poisson gee interaction",
			`{kind: coefficient, fit: gee, distribution: poisson, formula: "tool_calls ~ condition * model", refs: {condition: vanilla}, group: template, cov: bias-reduced, term: "condition[guard]:model[mai-code-1.1-flash]"}`,
			[]string{"--fit", "gee", "--family", "poisson", "--formula", "tool_calls ~ condition * model", "--ref", "condition=vanilla", "--group", "template", "--cov", "bias-reduced"},
			"condition[guard]:model[mai-code-1.1-flash]", true},
		{"poisson glmm random slope",
			`{kind: coefficient, fit: glmm, distribution: poisson, formula: "tool_calls ~ condition + (condition | template)", refs: {condition: vanilla}, term: "condition[guard]"}`,
			[]string{"--fit", "glmm", "--family", "poisson", "--formula", "tool_calls ~ condition + (condition | template)", "--ref", "condition=vanilla"},
			"condition[guard]", true},
		{"gaussian glm difference",
			`{kind: coefficient, fit: glm, distribution: gaussian, formula: "agent_time_s ~ model * condition", term: "model[mai-code-1.1-flash]"}`,
			[]string{"--fit", "glm", "--family", "gaussian", "--formula", "agent_time_s ~ model * condition"},
			"model[mai-code-1.1-flash]", false},
		{"odds ratio by fit gee",
			`{kind: odds_ratio, fit: gee, formula: "duplicated ~ model", group: template, term: "model[mai-code-1.1-flash]"}`,
			[]string{"--fit", "gee", "--family", "binomial", "--formula", "duplicated ~ model", "--group", "template"},
			"model[mai-code-1.1-flash]", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "h"+string(rune('0'+i))+".yaml")
			src := "prereg: 1\nhypotheses:\n  - id: H\n    statement: s\n    estimand: " + tt.estimand + "\n    rule: {direction: different}\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCmd(t, "hypotheses", "--prereg", path, "--in", ledger, "--format", "json")
			if code != 0 {
				t.Fatalf("hypotheses: %s", stderr)
			}
			var res struct {
				Hypotheses []struct {
					Parts []struct {
						Estimate struct {
							Value, Lo, Hi, P *float64
							N                int64
						}
						Reason string
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			hyps := res.Hypotheses
			if len(hyps) != 1 || len(hyps[0].Parts) != 1 {
				t.Fatalf("want one part:\n%s", out)
			}
			got := hyps[0].Parts[0].Estimate
			if got.Value == nil || got.Lo == nil || got.Hi == nil || got.P == nil {
				t.Fatalf("an undefined estimate (%s):\n%s", hyps[0].Parts[0].Reason, out)
			}
			code, out, stderr = runCmd(t, append([]string{"model", "--in", ledger, "--format", "json"}, tt.model...)...)
			if code != 0 {
				t.Fatalf("model: %s", stderr)
			}
			var m struct {
				N            int64
				DFResidual   *float64 `json:"df_residual"`
				Coefficients []struct {
					Term            string
					Estimate, SE, P float64
					Exp             *float64
					ExpLo           *float64 `json:"exp_lo"`
					ExpHi           *float64 `json:"exp_hi"`
				}
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, c := range m.Coefficients {
				if c.Term != tt.term {
					continue
				}
				want := [4]float64{c.Estimate, math.NaN(), math.NaN(), c.P}
				if tt.ratio {
					if c.Exp == nil || c.ExpLo == nil || c.ExpHi == nil {
						t.Fatalf("model prints no exp(estimate):\n%s", out)
					}
					want = [4]float64{*c.Exp, *c.ExpLo, *c.ExpHi, c.P}
				} else {
					// model prints no interval for an identity link: β ± t·SE
					// on the residual degrees of freedom, as R's confint(lm).
					q := stats.TLevel(0.95, *m.DFResidual)
					want[1], want[2] = c.Estimate-q*c.SE, c.Estimate+q*c.SE
				}
				for k, g := range []float64{*got.Value, *got.Lo, *got.Hi, *got.P} {
					if g != want[k] {
						t.Errorf("%s: prereg %v, model %v", []string{"estimate", "lo", "hi", "p"}[k], g, want[k])
					}
				}
				if got.N != m.N {
					t.Errorf("n: prereg %d, model %d", got.N, m.N)
				}
				return
			}
			t.Fatalf("model has no term %s:\n%s", tt.term, out)
		})
	}
}
