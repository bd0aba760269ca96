package analysis

import (
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// BenchmarkContrastVerbAgg compares a contrast with the fit it rests on:
// lme4's VerbAgg GLMM (7,584 rows, crossed subjects and items), its
// coefficients alone (fit), and the average contrasts of btype at the
// population level (contrast) and marginal over the random effects
// (marginal). A contrast costs the fit and its counterfactual averages;
// the target is at most twice the fit.
func BenchmarkContrastVerbAgg(b *testing.B) {
	in := testfile.GunzipTemp(b, filepath.Join("..", "mixed", "testdata", "verbagg.csv.gz"), "verbagg.csv")
	// Both read the CSV on each iteration, as the command does.
	q := Query{Source: &table.Files{Paths: []string{in}}}
	spec := ModelSpec{Fit: FitGLMM, Formula: "r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item)"}
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			if _, err := Model(q, spec); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, re := range []RandomEffects{RandomZero, RandomMarginal} {
		name := "contrast"
		if re == RandomMarginal {
			name = "marginal"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Contrast(q, ContrastSpec{Model: spec, Variable: "btype", RandomEffects: re}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
