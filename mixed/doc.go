// Package mixed fits generalised linear mixed models as R's lme4 does:
// linear mixed models (Gaussian, identity link) by REML or maximum
// likelihood as lmer, and binomial (logit, probit, cloglog) and Poisson
// (log) models by the Laplace approximation or adaptive
// Gauss–Hermite quadrature as glmer. Random-effects terms may have several
// correlated or uncorrelated coefficients (random slopes), and any number
// of terms may be crossed or nested.
//
// # API
//
// Fit takes a Spec: the fixed-effects design X, the response Y (with
// optional prior Weights, an Offset and binomial Trials), the Family and
// Link (package stats declares both, for its GLMs and for these), and the
// random Terms. Each Term is lme4's (z₁ + … + z_c | g): the
// level of g at every row and the c columns z_j (nil for the intercept),
// with Diagonal for (z₁ + … || g). A nested (1 | a/b) is the two terms
// (1 | a) and (1 | a:b). Fit returns a Fitted: β with its covariance and
// Wald tests, per term the SDs, correlations, θ and conditional modes, the
// residual SD σ (Gaussian), log-likelihood, REML criterion, AIC/BIC and
// typed Warnings, each saying what to do. FitLogit, the earlier entry
// point for logistic models with scalar random intercepts, is unchanged
// but for its warnings, typed the same way;
// Fit hands it the models it covers (binomial, logit, 0/1 response, no
// weights, offset or trials, random intercepts only), so those keep its
// row collapsing, adaptive quadrature (Options.NAGQ) and nAGQ = 0.
//
// # The model
//
// Following Bates, Mächler, Bolker & Walker (2015, J. Stat. Softw. 67(1)),
//
//	η = Xβ + o + Z Λ_θ u,   u ~ N(0, σ² I_q) (Gaussian) or N(0, I_q),
//
// where Λ_θ is block diagonal: for a term with c coefficients, the same
// c×c lower-triangular block (diagonal for Diagonal terms) at each level.
// θ collects, per term, the lower triangle of the block by columns: lme4's
// parameterisation, so the covariance of a term's coefficients is σ²ΛΛᵀ
// (Gaussian) or ΛΛᵀ.
//
// # Linear mixed models
//
// For Gaussian models β and σ are profiled out: for each θ one Cholesky
// factorisation of the penalised normal equations
//
//	[ ΛᵀZᵀWZΛ + I   ΛᵀZᵀWX ] [u]   [ΛᵀZᵀWy]
//	[ XᵀWZΛ         XᵀWX   ] [β] = [XᵀWy  ]
//
// gives the penalised residual sum of squares r²(θ), log|L_θ|² and
// log|R_X|², and the profiled deviance
//
//	d(θ) = log|L_θ|² − Σ log wᵢ + n (1 + log(2π r²/n))
//
// or the REML criterion log|L_θ|² + log|R_X|² − Σ log wᵢ +
// (n−p)(1 + log(2π r²/(n−p))) is minimised over θ. The cross-products
// ZᵀWZ, ZᵀWX, XᵀWX, ZᵀWy, XᵀWy and yᵀWy are formed once, so an evaluation
// costs O(q) and not O(n).
//
// # Generalised models
//
// For fixed (θ, β) penalised iteratively reweighted least squares (lme4's
// pwrssUpdate) finds the conditional modes û. The deviance is the Laplace
// approximation (nAGQ = 1) or, with a single grouping factor, adaptive
// Gauss–Hermite quadrature with any number of nodes. As glmer does, the
// outer optimisation first fits θ with β from joint PIRLS (nAGQ = 0) by
// Nelder–Mead, then (θ, β) jointly by Newton steps on the central-difference
// Hessian (lme4's deriv12 stencil), which also gives the standard errors;
// Nelder–Mead is the fallback. For the logistic models with random
// intercepts that Fit hands to FitLogit's model, the Laplace deviance has
// an analytic gradient (the adjoint of the PIRLS condition gives û's
// dependence on (θ, β)): the joint stage is quasi-Newton (BFGS) and the
// Hessian is the central difference of the gradient, 2n evaluations
// instead of 2n²+1. FitLogit itself keeps the central differences of the
// deviance, so that its results stay as they were to the last bit.
// θ enters the deviance with its sign (the deviance is even in each θ_k),
// so no bounds are needed and θ = 0 is reached exactly after lme4's
// boundary check.
//
// The standard errors are lme4's vcov: 2H⁻¹ restricted to β, H the
// Hessian of the deviance over (θ, β) jointly at lme4's step 1e-4, with
// RX (the PIRLS system's β block at fixed θ) only when H is not positive
// definite or, as glmer's calc.derivs, from 10⁴ rows or 20 parameters
// on. The finite differences need a deviance smooth to rounding at that
// step, so PIRLS converges fully: Newton steps to 1e-8 for canonical
// links, and for probit and cloglog, whose PIRLS is Fisher scoring
// (linear convergence), steps to 1e-13. lme4 stops PIRLS at a relative
// change of the penalised deviance of tolPwrss (1e-7 by default) from
// the same start at every evaluation, which can leave its deviance rough
// at 1e-4: on cbpp its default SEs are 1.3% off the Hessian's, and agree
// with ours to 1e-5 once tolPwrss is 1e-9 (testdata/vcov.R, where lme4's
// default optimum, looser than ours, moves other SEs by up to 0.5%).
//
// A grouping factor with one row per level is an observation-level
// random effect (overdispersion), which binomial and Poisson models take
// as glmer does; a Gaussian model refuses it, its variance being the
// residual variance.
//
// # Linear algebra
//
// The normal equations are solved in block form: the term with the most
// levels forms a block-diagonal part (one c×c block per level) and the
// others (and β in the joint step) a small dense block, reached by its
// Schur complement, so a crossed fit never factorises a dense q×q matrix.
// In FitLogit identical rows are collapsed into binomial counts; the
// likelihood remains that of the Bernoulli rows.
package mixed
