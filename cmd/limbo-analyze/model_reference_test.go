package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readReference reads testdata/cli/reference_{r,py}.csv (case,term,estimate,se)
// into case → term → [estimate, se].
func readReference(t *testing.T) map[string]map[string][2]float64 {
	t.Helper()
	out := map[string]map[string][2]float64{}
	for _, f := range []string{"reference_r.csv", "reference_py.csv"} {
		b, err := os.ReadFile(filepath.Join(cliData, f))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range recs[1:] {
			est, _ := strconv.ParseFloat(r[2], 64)
			se, err := strconv.ParseFloat(r[3], 64)
			if err != nil {
				se = math.NaN()
			}
			if out[r[0]] == nil {
				out[r[0]] = map[string][2]float64{}
			}
			out[r[0]][r[1]] = [2]float64{est, se}
		}
	}
	return out
}

func runJSON(t *testing.T, args []string, v any) {
	t.Helper()
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "DATA", filepath.Join(cliData, "episodes.csv"))
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

func approx(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-8)
}

// TestModelReference compares the CLI's coefficients with R glm and
// statsmodels GEE on testdata/cli/episodes.csv (values computed by
// testdata/cli/reference.R and reference.py). Tolerance 1e-6 relative
// (IRLS and GEE, issue #5).
func TestModelReference(t *testing.T) {
	ref := readReference(t)
	type coef struct {
		Term     string   `json:"term"`
		Estimate *float64 `json:"estimate"`
		SE       *float64 `json:"se"`
	}
	tests := []struct {
		args  []string
		ref   string
		terms map[string]string // CLI term → reference term
	}{
		{[]string{"model", "--in", "DATA", "--formula", "eos ~ contract + condition + difficulty", "--format", "json"}, "logit",
			map[string]string{"(Intercept)": "(Intercept)", "contract[native]": "contractnative", "condition[guard]": "conditionguard",
				"condition[vanilla]": "conditionvanilla", "difficulty": "difficulty"}},
		{[]string{"model", "--in", "DATA", "--formula", "eos ~ C(difficulty) + team", "--ref", "difficulty=2", "--format", "json"}, "logit_ref",
			map[string]string{"(Intercept)": "(Intercept)", "difficulty[1]": "difficulty21", "difficulty[3]": "difficulty23", "team[red]": "teamred"}},
		{[]string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--formula", "eos ~ contract + condition", "--format", "json"}, "gee_robust",
			map[string]string{"(Intercept)": "Intercept", "contract[native]": "contract[T.native]", "condition[guard]": "condition[T.guard]", "condition[vanilla]": "condition[T.vanilla]"}},
		{[]string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--cov", "bias-reduced", "--formula", "eos ~ contract + condition", "--format", "json"}, "gee_bias_reduced",
			map[string]string{"(Intercept)": "Intercept", "contract[native]": "contract[T.native]", "condition[guard]": "condition[T.guard]", "condition[vanilla]": "condition[T.vanilla]"}},
	}
	for _, tt := range tests {
		var res struct {
			Coefficients []coef   `json:"coefficients"`
			Alpha        *float64 `json:"alpha"`
		}
		runJSON(t, tt.args, &res)
		if len(res.Coefficients) != len(tt.terms) {
			t.Errorf("%s: %d coefficients, want %d", tt.ref, len(res.Coefficients), len(tt.terms))
		}
		for _, c := range res.Coefficients {
			want, ok := ref[tt.ref][tt.terms[c.Term]]
			if !ok {
				t.Errorf("%s: no reference for %s", tt.ref, c.Term)
				continue
			}
			if c.Estimate == nil || !approx(*c.Estimate, want[0], 1e-6) || c.SE == nil || !approx(*c.SE, want[1], 1e-6) {
				t.Errorf("%s %s: estimate, se = %v, %v; want %v, %v", tt.ref, c.Term, *c.Estimate, *c.SE, want[0], want[1])
			}
		}
		if tt.ref == "gee_robust" {
			if want := ref["gee_robust"]["alpha"][0]; res.Alpha == nil || !approx(*res.Alpha, want, 1e-6) {
				t.Errorf("gee alpha = %v, want %v", res.Alpha, want)
			}
		}
	}

	// Closed forms: 1e-9 relative.
	var rates struct {
		Rows []struct{ Lo, Hi float64 } `json:"rows"`
	}
	runJSON(t, []string{"rates", "--in", "DATA", "--outcome", "eos", "--weight", "none", "--format", "json"}, &rates)
	if lo, hi := ref["wilson"]["lo"][0], ref["wilson"]["hi"][0]; !approx(rates.Rows[0].Lo, lo, 1e-9) || !approx(rates.Rows[0].Hi, hi, 1e-9) {
		t.Errorf("Wilson = [%v, %v], want statsmodels [%v, %v]", rates.Rows[0].Lo, rates.Rows[0].Hi, lo, hi)
	}
	var paired struct {
		Comparisons []struct {
			Other string  `json:"other"`
			P     float64 `json:"p"`
		} `json:"comparisons"`
	}
	runJSON(t, []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--format", "json"}, &paired)
	if p, want := paired.Comparisons[1].P, ref["mcnemar"]["p"][0]; paired.Comparisons[1].Other != "guard" || !approx(p, want, 1e-9) {
		t.Errorf("McNemar vanilla vs %s: p = %v, want R binom.test %v", paired.Comparisons[1].Other, p, want)
	}
}
