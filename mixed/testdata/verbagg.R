# lme4's VerbAgg for mixed.Fit (Go): the crossed binomial GLMM
#   r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item)
# on the data (verbagg.csv.gz) and on ten copies of it with distinct
# subjects (75,840 rows, 3,160 × 24 crossed levels; the Go test builds the
# copies). Writes verbagg_ref.json with tight glmer values for both.
# Run from this directory:  Rscript verbagg.R   (about a minute)
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
d <- VerbAgg[, c("r2", "Anger", "Gender", "btype", "situ", "id", "item")]
d$r2 <- as.integer(d$r2 == "Y")
con <- gzfile("verbagg.csv.gz", "w"); write.csv(d, con, row.names = FALSE); close(con)
rec <- function(fit) {
  vc <- VarCorr(fit)
  list(beta = unname(fixef(fit)), names = names(fixef(fit)),
       se = unname(sqrt(diag(as.matrix(vcov(fit))))),
       se_rx = unname(suppressWarnings(sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE)))))),
       theta = unname(getME(fit, "theta")),
       terms = lapply(names(vc), function(g) list(group = g, sd = unname(attr(vc[[g]], "stddev")))),
       loglik = as.numeric(logLik(fit)), df = attr(logLik(fit), "df"),
       aic = AIC(fit), bic = BIC(fit), nobs = nobs(fit), ngrps = as.list(ngrps(fit)),
       singular = isSingular(fit), sigma = 1)
}
f <- r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item)
ref <- list(verbagg = rec(glmer(f, d, family = binomial, control = tightG)))
d10 <- do.call(rbind, lapply(0:9, function(k) transform(d, id = paste0(k, ":", id))))
ref$verbagg10 <- rec(glmer(f, d10, family = binomial, control = tightG))
writeLines(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE), "verbagg_ref.json")
