// Package formula parses the small model language of the analysis commands
// and turns an episode frame into design matrices.
//
// # Formulas
//
// A formula is R-like: `eos ~ contract + fault_mode + C(instance) + (1|model)`.
// The left side names a binary outcome column. On the right, terms are
// separated by `+`; a string column is categorical, a numeric or boolean
// column enters as a number, `C(x)` forces x to be categorical, `(1|g)` is a
// random intercept for the grouping column g (GLMM only), `0` or `-1` drops
// the intercept. Column names that are not identifiers are written in
// backquotes: `my col`.
//
// # Design matrices
//
// Categorical columns use treatment (dummy) coding: the reference level is
// the first in sorted order (numeric order when every level is a number)
// unless Options.Ref names another. Columns are named `(Intercept)`, the
// column name for a numeric term and `col[level]` for a dummy.
//
// # Where expressions
//
// A `--where` filter is a boolean expression over columns:
// `fault_fired && condition == "vanilla"`, with `&&`, `||`, `!`, the
// comparisons `== != < <= > >=`, `x in ("a", "b")`, string, number and
// boolean literals and parentheses.
package formula
