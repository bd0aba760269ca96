# Reference values for mixed.Fit (Go), computed with lme4.
#
# Run from this directory:  Rscript make.R
# Writes the data sets (*.csv) and ref.json: per case, lme4's fixed effects,
# SEs, theta, sigma, per-term SDs and correlations (VarCorr order), logLik,
# REML criterion, AIC, BIC and the number of levels. "Tight" settings, so
# the optimum is converged far below the tests' tolerances: lmer with
# bobyqa (rhoend 1e-12), glmer with tolPwrss 1e-12 and bobyqa in both stages.
suppressPackageStartupMessages({library(lme4); library(jsonlite)})

tightL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e5))
tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-12, maxfun = 1e5))

ref <- list()
record <- function(case, fit) {
  vc <- VarCorr(fit)
  terms <- lapply(names(vc), function(g) {
    v <- vc[[g]]
    list(group = g, coef = colnames(v), sd = unname(attr(v, "stddev")),
         corr = if (is.null(attr(v, "correlation"))) list() else as.numeric(attr(v, "correlation")))
  })
  ll <- logLik(fit)
  r <- list(beta = unname(fixef(fit)), names = names(fixef(fit)),
            se = unname(sqrt(diag(as.matrix(vcov(fit))))),
            theta = unname(getME(fit, "theta")), theta_names = names(getME(fit, "theta")),
            sigma = sigma(fit), loglik = as.numeric(ll), df = attr(ll, "df"),
            aic = AIC(fit), bic = BIC(fit), nobs = nobs(fit),
            ngrps = as.list(ngrps(fit)), terms = terms,
            singular = isSingular(fit))
  if (!isLMM(fit))  # RX-based (conditional on theta) SEs
    r$se_rx <- unname(suppressWarnings(sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE))))))
  if (isLMM(fit)) {
    r$reml <- isREML(fit)
    if (isREML(fit)) r$remlcrit <- unname(REMLcrit(fit))
    r$deviance_ml <- unname(deviance(refitML(fit)))
  }
  ref[[case]] <<- r
}

# --- Gaussian LMMs -----------------------------------------------------------
write.csv(sleepstudy, "sleepstudy.csv", row.names = FALSE)
record("sleep_reml", lmer(Reaction ~ Days + (Days | Subject), sleepstudy, control = tightL))
record("sleep_ml", lmer(Reaction ~ Days + (Days | Subject), sleepstudy, REML = FALSE, control = tightL))
record("sleep_diag", lmer(Reaction ~ Days + (Days || Subject), sleepstudy, control = tightL))

write.csv(Penicillin, "penicillin.csv", row.names = FALSE)
record("penicillin", lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin, control = tightL))

write.csv(Pastes, "pastes.csv", row.names = FALSE)
record("pastes", lmer(strength ~ 1 + (1 | batch/cask), Pastes, control = tightL))
record("pastes_ml", lmer(strength ~ 1 + (1 | batch/cask), Pastes, REML = FALSE, control = tightL))

# Generated: 30 groups g with correlated intercept and slope on x, 12
# crossed levels h, a covariate z, prior weights w and an offset o.
set.seed(20261202)
ng <- 30; nh <- 12; n <- 720
g <- sample(ng, n, replace = TRUE); h <- sample(nh, n, replace = TRUE)
x <- runif(n, -1, 1); z <- rnorm(n); w <- runif(n, 0.5, 2); o <- runif(n, 0, 1)
L <- matrix(c(1.0, 0.0, 0.4, 0.6), 2, 2, byrow = TRUE)
b <- matrix(rnorm(2 * ng), ng) %*% t(L)
bh <- rnorm(nh, 0, 0.5)
y <- 2 + 0.5 * x - 0.3 * z + b[g, 1] + b[g, 2] * x + bh[h] + rnorm(n, 0, 0.8) / sqrt(w)
gen <- data.frame(y = y, x = x, z = z, g = g, h = h, w = w, o = o)
write.csv(gen, "lmm_gen.csv", row.names = FALSE)
record("gen_reml", lmer(y ~ x + z + (x | g) + (1 | h), gen, control = tightL))
record("gen_wo_ml", lmer(y ~ x + z + (x | g) + (1 | h), gen, weights = w, offset = o,
                         REML = FALSE, control = tightL))

# --- GLMMs -------------------------------------------------------------------
write.csv(cbpp, "cbpp_trials.csv", row.names = FALSE)
record("cbpp_trials", glmer(cbind(incidence, size - incidence) ~ period + (1 | herd),
                            cbpp, family = binomial, control = tightG))
record("cbpp_probit", glmer(cbind(incidence, size - incidence) ~ period + (1 | herd),
                            cbpp, family = binomial(link = "probit"), control = tightG))
record("cbpp_cloglog", glmer(cbind(incidence, size - incidence) ~ period + (1 | herd),
                             cbpp, family = binomial(link = "cloglog"), control = tightG))

gt <- grouseticks[, c("TICKS", "YEAR", "cHEIGHT", "BROOD", "LOCATION")]
write.csv(gt, "grouseticks.csv", row.names = FALSE)
record("grouse", glmer(TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION), gt,
                       family = poisson, control = tightG))

# Generated counts and binary outcomes with a correlated random slope.
set.seed(20261203)
ng <- 40; n <- 800
g <- sample(ng, n, replace = TRUE); x <- runif(n, -1, 1); e <- runif(n, 0.5, 2)
b <- matrix(rnorm(2 * ng), ng) %*% t(matrix(c(0.5, 0, 0.15, 0.3), 2, 2, byrow = TRUE))
eta <- 0.5 + 0.4 * x + b[g, 1] + b[g, 2] * x
cnt <- rpois(n, e * exp(eta))
bin <- rbinom(n, 1, plogis(eta - 0.5))
glmm <- data.frame(y = cnt, yb = bin, x = x, g = g, e = e)
write.csv(glmm, "glmm_gen.csv", row.names = FALSE)
record("pois_slope", glmer(y ~ x + (x | g), glmm, family = poisson, offset = log(e), control = tightG))
record("pois_weights", glmer(y ~ x + (1 | g), glmm, family = poisson, weights = e, control = tightG))
record("bin_slope", glmer(yb ~ x + (x | g), glmm, family = binomial, control = tightG))
record("bin_slope_diag", glmer(yb ~ x + (x || g), glmm, family = binomial, control = tightG))

writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE), "ref.json")
cat(R.version.string, "lme4", as.character(packageVersion("lme4")), "\n")
