package analysis

import (
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
)

// Every fitting path of Model leaves its fitted model, consistent with
// itself: β and its covariance over the design's columns, the design
// over the frame's rows, a GLMM's random terms those of the formula.
func TestModelLeavesFitted(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	for _, tc := range []struct {
		name string
		spec ModelSpec
		fit  ModelFit
	}{
		{"logit", ModelSpec{Family: FamilyLogit, Formula: "eos ~ condition + contract"}, FitGLM},
		{"gee legacy", ModelSpec{Family: FamilyGEE, Group: "task", Formula: "eos ~ condition"}, FitGEE},
		{"glmm legacy", ModelSpec{Family: FamilyGLMM, Formula: "eos ~ condition + (1|task)"}, FitGLMM},
		{"glm binomial logit", ModelSpec{Fit: FitGLM, Family: "binomial", Formula: "eos ~ condition"}, FitGLM},
		{"glm poisson", ModelSpec{Family: "poisson", Formula: "tool_calls ~ condition + offset(log(difficulty))"}, FitGLM},
		{"gee binomial", ModelSpec{Fit: FitGEE, Family: "binomial", Group: "task", Formula: "eos ~ condition"}, FitGEE},
		{"gee gaussian", ModelSpec{Fit: FitGEE, Family: "gaussian", Group: "task", Formula: "agent_time_s ~ condition"}, FitGEE},
		{"glmm poisson slope", ModelSpec{Family: "poisson", Formula: "tool_calls ~ condition + (1 + difficulty | task)"}, FitGLMM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Model(q, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Fitted
			if m == nil {
				t.Fatal("no fitted model")
			}
			n, p := m.Design.X.Dims()
			if m.Fit != tc.fit || len(m.Coef) != p || m.Cov.SymmetricDim() != p || n != m.Frame.Len() || len(m.Terms) != len(m.Formula.Random) {
				t.Errorf("fit %s, %d coefficients, cov %d, design %d×%d, frame %d rows, %d random terms (formula %d)",
					m.Fit, len(m.Coef), m.Cov.SymmetricDim(), n, p, m.Frame.Len(), len(m.Terms), len(m.Formula.Random))
			}
			if m.Offset != nil && len(m.Offset) != n {
				t.Errorf("%d offsets for %d rows", len(m.Offset), n)
			}
			for _, term := range m.Terms {
				if term.Cov.SymmetricDim() != len(term.Coef) {
					t.Errorf("term %s: %d coefficients, covariance %d", term.Group, len(term.Coef), term.Cov.SymmetricDim())
				}
			}
		})
	}
}
