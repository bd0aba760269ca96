# Fits one model of bench/lme4.sh with lme4 (default settings) and prints
# the estimates, the log-likelihood and the fit's own seconds.
#   Rscript bench/lme4.R verbagg|lmm FILE.csv
suppressPackageStartupMessages(library(lme4))
a <- commandArgs(trailingOnly = TRUE)
d <- read.csv(a[2])
t0 <- proc.time()[["elapsed"]]
fit <- switch(a[1],
  verbagg = glmer(r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item), d, family = binomial),
  lmm = lmer(y ~ x + (x | g), d, REML = TRUE))
el <- proc.time()[["elapsed"]] - t0
cat("beta", format(fixef(fit), digits = 10), "\n")
print(VarCorr(fit), digits = 8)
cat("loglik", format(as.numeric(logLik(fit)), digits = 12), "fit_seconds", el, "\n")
