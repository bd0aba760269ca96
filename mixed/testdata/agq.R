# Reference values for mixed.Fit with adaptive Gauss–Hermite quadrature
# (nAGQ > 1) on the models FitLogit does not take: binomial with trials
# (logit, probit, cloglog) and Poisson with an offset, each with one scalar
# random intercept, as lme4 requires for nAGQ > 1.
#
# Run from this directory after make.R (which writes the CSV files):
#   Rscript agq.R
# Writes agq_ref.json in ref.json's layout. "Tight" settings as make.R's.
# For nAGQ > 1 lme4's logLik is built from deviance residuals: it is
# ℓ − ℓ_sat, the log-likelihood less that of the saturated model (0 for
# 0/1 responses only), so loglik_sat records ℓ_sat (with the constants in y).
suppressPackageStartupMessages({library(lme4); library(jsonlite)})

tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-12, maxfun = 1e5))

ref <- list()
record <- function(case, fit, sat) {
  vc <- VarCorr(fit)
  terms <- lapply(names(vc), function(g) {
    v <- vc[[g]]
    list(group = g, coef = colnames(v), sd = unname(attr(v, "stddev")), corr = list())
  })
  ll <- logLik(fit)
  ref[[case]] <<- list(beta = unname(fixef(fit)), names = names(fixef(fit)),
    se = unname(sqrt(diag(as.matrix(vcov(fit))))),
    se_rx = unname(suppressWarnings(sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE)))))),
    theta = unname(getME(fit, "theta")), sigma = sigma(fit),
    loglik = as.numeric(ll), df = attr(ll, "df"), aic = AIC(fit), bic = BIC(fit),
    nobs = nobs(fit), ngrps = as.list(ngrps(fit)), terms = terms,
    singular = isSingular(fit), nagq = 5, loglik_sat = sat)
}

cbpp <- read.csv("cbpp_trials.csv")
cbpp$period <- factor(cbpp$period)
for (link in c("logit", "probit", "cloglog")) {
  record(paste0("cbpp_", link, "_agq5"),
         glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp,
               family = binomial(link = link), nAGQ = 5, control = tightG),
         sum(dbinom(cbpp$incidence, cbpp$size, cbpp$incidence / cbpp$size, log = TRUE)))
}

gen <- read.csv("glmm_gen.csv")
record("pois_agq5", glmer(y ~ x + (1 | g), gen, family = poisson, offset = log(e),
                          nAGQ = 5, control = tightG),
       sum(dpois(gen$y, gen$y, log = TRUE)))

writeLines(toJSON(ref, auto_unbox = TRUE, digits = NA, pretty = TRUE), "agq_ref.json")
