// Package shapley decomposes a model-fit value (any pseudo-R²) into exact
// Shapley values over factor groups, with shares and the conditional
// dominance table of dominance analysis.
//
// It knows nothing of models: the caller supplies a value function of a
// subset of groups (the pseudo-R² of the model with those groups' columns
// plus an intercept, 0 for the empty set). It imports only the standard
// library.
package shapley
