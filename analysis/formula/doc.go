// Package formula parses the small model language of the analysis commands
// and turns an episode frame into design matrices.
//
// # Formulas
//
// A formula is R's: `eos ~ contract * fault_mode + C(instance) + (1|model)`.
// The left side names the outcome column, or is cbind(successes, failures)
// for aggregated binomial counts, where either side may be an expression
// (`cbind(k, n - k)`; numbers, columns, + - * /, log, exp, sqrt). On the
// right, a string column is categorical, a numeric or boolean column enters
// as a number and `C(x)` forces x to be categorical. Terms combine as in
// R: `a + b`, the interaction `a:b`, `a*b` (a + b + a:b), `a/b` (a + a:b),
// `(a + b + c)^2` (the terms and their two-way interactions), `- a`
// removes a term, `0` or `- 1` drops the intercept; duplicated terms are
// merged. `offset(expr)` adds a known term to the linear predictor
// (`offset(log(exposure))`). Random terms are lme4's: `(1|g)` a random
// intercept, `(x | g)` correlated intercept and slope, `(x || g)` both
// uncorrelated, `(0 + x | g)` a slope alone, `(1 | a/b)` nesting (the same
// as `(1|a) + (1|a:b)`), and several terms are crossed. Column names that
// are not identifiers are written in backquotes: `my col`.
//
// Terms are ordered as R's terms() orders them: by order (main effects,
// then two-way interactions, ...), then as written; an interaction's
// variables are in order of first appearance.
//
// # Design matrices
//
// Categorical columns use treatment (dummy) coding: the reference level is
// the first in sorted order (numeric order when every level is a number)
// unless Options.Ref names another. As in R's model.matrix, a factor in a
// term is coded by contrasts when the term without it is the intercept or
// part of an earlier term and by all its levels otherwise, and without an
// intercept the first factor keeps all its levels. Columns are named
// `(Intercept)`, the column name for a numeric term, `col[level]` for a
// dummy and their parts joined by `:` for an interaction
// (`wool[B]:tension[M]`, `age:smoke`), the first variable varying fastest.
// Interaction columns that no row reaches are left out with a warning.
//
// # Where expressions
//
// A `--where` filter is a boolean expression over columns:
// `fault_fired && condition == "vanilla"`, with `&&`, `||`, `!`, the
// comparisons `== != < <= > >=`, `x in ("a", "b")`, string, number and
// boolean literals and parentheses.
package formula
