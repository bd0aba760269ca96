// Package mixed fits mixed-effects logistic regression (a binomial GLMM with
// logit link) with one or more scalar random intercepts, crossed or nested,
// by maximum likelihood as R's lme4::glmer does.
//
// The model (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1)) is
//
//	η = Xβ + Z Λ_θ u,   u ~ N(0, I_q),   y | u ~ Bernoulli(expit(η)),
//
// with Λ_θ diagonal: θ_k, the standard deviation of the k-th intercept, on the
// columns of the k-th grouping factor.
//
// # Algorithm
//
// For fixed (θ, β) penalised iteratively reweighted least squares (lme4's
// pwrssUpdate) finds the conditional modes û. The deviance is the Laplace
// approximation (nAGQ = 1) or, with a single grouping factor, adaptive
// Gauss–Hermite quadrature with any number of nodes. As glmer does, the
// outer optimisation first fits θ with β from joint PIRLS (nAGQ = 0) by
// Nelder–Mead, then (θ, β) jointly by Newton steps on the central-difference
// Hessian (lme4's deriv12 stencil), which also gives the standard errors;
// Nelder–Mead is the fallback. θ enters the deviance with its sign (the
// deviance is even in each θ_k), so no bounds are needed and θ = 0 is
// reached exactly after lme4's boundary check.
//
// The PIRLS normal equations are solved in block form: the grouping factor
// with the most levels forms a diagonal block and the others (and β in the
// joint step) a small dense block, reached by its Schur complement, so a
// crossed fit never factorises a dense q×q matrix. Identical rows are
// collapsed into binomial counts; the likelihood remains that of the
// Bernoulli rows.
package mixed
