# lme4's GLMM standard errors against its PIRLS tolerance, for mixed.Fit
# (Go) and docs/methods.md ("GLMM: standard errors").
#
# Run from this directory, after make.R and obslevel.R:  Rscript vcov.R
# (about a minute). For each GLMM reference case, vcov_ref.json holds:
#   se          tight glmer (tolPwrss 1e-12, bobyqa rhoend 1e-12), as ref.json
#   se_default  glmer with its default control (tolPwrss 1e-7)
#   se_pwrss    the default optimizers with tolPwrss 1e-9 only
#   se_h2, se_h3  2 H^-1 (beta block) from lme4:::deriv12 of the tight fit's own
#               deviance function (update(fit, devFunOnly = TRUE)) with steps
#               1e-2 and 1e-3 instead of glmer's 1e-4 (NaN where H is not
#               positive definite)
#   fallback    whether the tight fit's vcov fell back to RX (its Hessian at
#               step 1e-4 not positive definite)
# vcov is 2 H^-1 restricted to beta, H the central-difference Hessian of the
# Laplace deviance over (theta, beta) at step 1e-4 (optwrap's deriv12); how
# smooth that deviance is at 1e-4 depends on how far PIRLS converges, which
# is what the columns show.
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-12, maxfun = 1e5))
se <- function(fit) unname(sqrt(diag(as.matrix(vcov(fit)))))
seh <- function(fit, delta) {
  dd <- update(fit, devFunOnly = TRUE)
  p <- c(getME(fit, "theta"), fixef(fit))
  h <- lme4:::deriv12(dd, p, delta = delta)$Hessian
  v <- tryCatch(2 * solve(h), error = function(e) matrix(NaN, nrow(h), ncol(h)))
  k <- length(getME(fit, "theta"))
  s <- suppressWarnings(sqrt(diag(v)[-seq_len(k)]))
  if (any(eigen(v[-seq_len(k), -seq_len(k)], only.values = TRUE)$values <= 0)) s[] <- NaN
  s
}
ref <- list()
record <- function(case, tight) {
  h <- tight@optinfo$derivs$Hessian
  k <- length(getME(tight, "theta"))
  fb <- inherits(tryCatch(chol(solve(h)[-seq_len(k), -seq_len(k)]), error = function(e) e), "error")
  ref[[case]] <<- list(
    se = se(tight),
    se_default = se(suppressWarnings(update(tight, control = glmerControl()))),
    se_pwrss = se(suppressWarnings(update(tight, control = glmerControl(tolPwrss = 1e-9)))),
    se_h2 = seh(tight, 1e-2), se_h3 = seh(tight, 1e-3), fallback = fb)
}
cbpp <- read.csv("cbpp_trials.csv"); cbpp$herd <- factor(cbpp$herd); cbpp$period <- factor(cbpp$period)
fc <- cbind(incidence, size - incidence) ~ period + (1 | herd)
record("cbpp_trials", glmer(fc, cbpp, family = binomial, control = tightG))
record("cbpp_probit", glmer(fc, cbpp, family = binomial(link = "probit"), control = tightG))
record("cbpp_cloglog", glmer(fc, cbpp, family = binomial(link = "cloglog"), control = tightG))
gt <- read.csv("grouseticks.csv"); for (v in c("YEAR", "BROOD", "LOCATION")) gt[[v]] <- factor(gt[[v]])
record("grouse", glmer(TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION), gt, family = poisson, control = tightG))
glmm <- read.csv("glmm_gen.csv")
record("pois_slope", glmer(y ~ x + (x | g) + offset(log(e)), glmm, family = poisson, control = tightG))
record("pois_weights", glmer(y ~ x + (1 | g), glmm, family = poisson, weights = e, control = tightG))
record("bin_slope", glmer(yb ~ x + (x | g), glmm, family = binomial, control = tightG))
record("bin_slope_diag", suppressWarnings(glmer(yb ~ x + (x || g), glmm, family = binomial, control = tightG)))
va <- read.csv(gzfile("verbagg.csv.gz"))
record("verbagg", glmer(r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item), va, family = binomial, control = tightG))
cbo <- read.csv("cbpp_obs.csv"); for (v in c("herd", "period", "obs")) cbo[[v]] <- factor(cbo[[v]])
record("cbpp_obs", glmer(cbind(incidence, size - incidence) ~ period + (1 | herd) + (1 | obs), cbo, family = binomial, control = tightG))
gto <- read.csv("grouseticks_obs.csv"); for (v in c("INDEX", "YEAR", "BROOD", "LOCATION")) gto[[v]] <- factor(gto[[v]])
record("grouse_obs", glmer(TICKS ~ YEAR + sHEIGHT + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION), gto, family = poisson, control = tightG))
writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE), "vcov_ref.json")
cat(R.version.string, "lme4", as.character(packageVersion("lme4")), "\n")
