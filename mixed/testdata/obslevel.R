# Observation-level random effects in binomial and Poisson GLMMs, for
# mixed.Fit and analysis.Model (Go), computed with lme4.
#
# Run from this directory:  Rscript obslevel.R   (seconds)
# Reads ../../testdata/mixed/cbpp.csv; writes cbpp_obs.csv (lme4's cbpp with obs = 1..56), grouseticks_obs.csv
# (lme4's grouseticks with sHEIGHT = scale(HEIGHT), since the engine's
# formulas take columns, not scale()) and obslevel_ref.json: per case the
# tight glmer values (β, SEs from the Hessian and from RX, θ, per-term SDs,
# logLik, df, AIC, BIC, levels, singular), as make.R records them.
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-12, maxfun = 1e5))
ref <- list()
record <- function(case, fit) {
  vc <- VarCorr(fit)
  ll <- logLik(fit)
  ref[[case]] <<- list(
    beta = unname(fixef(fit)), names = names(fixef(fit)),
    se = unname(sqrt(diag(as.matrix(vcov(fit))))),
    se_rx = unname(suppressWarnings(sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE)))))),
    theta = unname(getME(fit, "theta")), theta_names = names(getME(fit, "theta")),
    terms = lapply(names(vc), function(g) list(group = g, coef = colnames(vc[[g]]),
                                               sd = unname(attr(vc[[g]], "stddev")))),
    sigma = 1, loglik = as.numeric(ll), df = attr(ll, "df"), aic = AIC(fit), bic = BIC(fit),
    nobs = nobs(fit), ngrps = as.list(ngrps(fit)), singular = isSingular(fit))
}

cb <- cbpp
cb$obs <- seq_len(nrow(cb))
write.csv(cb, "cbpp_obs.csv", row.names = FALSE)
cb$obs <- factor(cb$obs)
record("cbpp_obs", glmer(cbind(incidence, size - incidence) ~ period + (1 | herd) + (1 | obs),
                         cb, family = binomial, control = tightG))

gt <- grouseticks[, c("INDEX", "TICKS", "BROOD", "HEIGHT", "YEAR", "LOCATION")]
gt$sHEIGHT <- as.numeric(scale(gt$HEIGHT))
write.csv(gt, "grouseticks_obs.csv", row.names = FALSE)
record("grouse_obs", glmer(TICKS ~ YEAR + sHEIGHT + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION),
                           gt, family = poisson, control = tightG))

# The same cbpp as 842 Bernoulli rows (../../testdata/mixed/cbpp.csv, made by
# make.R there) with an observation-level effect: a 0/1 response carries no
# overdispersion, and the Laplace fit puts its SD at 0 (singular).
B <- read.csv("../../testdata/mixed/cbpp.csv")
B$obs <- factor(seq_len(nrow(B))); B$herd <- factor(B$herd); B$period <- factor(B$period)
record("cbpp_bernoulli_obs", glmer(y ~ period + (1 | herd) + (1 | obs), B, family = binomial, control = tightG))

writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE), "obslevel_ref.json")
cat(R.version.string, "lme4", as.character(packageVersion("lme4")), "\n")
