// Package stats holds the numerics behind the LIMBO tables: Wilson and Kish
// intervals, McNemar and multiplicity adjustment, TOST and Newcombe
// intervals, logistic regression (IRLS, Firth), pseudo-R² and GEE.
//
// It takes slices and gonum matrices and returns small result structs; it
// does no I/O and knows nothing of ledgers. Caller mistakes (length
// mismatches, impossible arguments) panic with a "stats: " prefix; failures
// that depend on the data (separation, singular matrices, no convergence)
// are returned as errors or flagged in results. Each estimator's doc comment
// gives its formula and source; tests compare against R and statsmodels.
package stats
