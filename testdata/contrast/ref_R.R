# Reference average predictions and contrasts for analysis.Contrast, from R.
#
#  - emmeans on a counterfactuals reference grid (ref_grid(counterfactuals =
#    "condition"), regridded to the response scale and averaged over the
#    rows; ratios by regrid(transform = "log")): a binomial GLM and a
#    geepack GEE (exchangeable, robust sandwich), on clustered.csv;
#  - a Poisson GLM with an offset (which Python marginaleffects leaves out
#    and emmeans' counterfactuals grid cannot evaluate), computed here as
#    the GLMMs are: predict() on each counterfactual copy of the rows;
#  - GLMMs fitted by lme4 (tight control, as testdata/mixed): lme4's VerbAgg
#    (../../mixed/testdata/verbagg.csv.gz) and cbpp as Bernoulli rows
#    (../mixed/cbpp.csv), the average predictions computed here from
#    fixef() and vcov() at the population level (random effects 0) and
#    marginal over the random effects (each row's mean integrated over
#    N(0, sum of the variances) with integrate()).
#
# Writes ref_R.json. Run from this directory (R 4.2.2, emmeans 1.8.4,
# geepack 1.3.9, lme4 1.1-31; Debian r-cran-emmeans r-cran-geepack
# r-cran-lme4 r-cran-jsonlite):  Rscript ref_R.R
suppressPackageStartupMessages({library(emmeans); library(geepack); library(lme4); library(jsonlite)})

d <- read.csv("clustered.csv", stringsAsFactors = FALSE)
d$condition <- factor(d$condition, levels = c("vanilla", "aware", "guard"))
d$model <- factor(d$model)
d$task <- factor(d$task)
tightGLM <- glm.control(epsilon = 1e-14, maxit = 100)

# emm records the counterfactual means of fit's var and the contrasts of
# each level against the first.
emm <- function(name, fit, var, extra = list()) {
  e <- emmeans(ref_grid(fit, counterfactuals = var), var)
  s <- as.data.frame(summary(e))
  dif <- as.data.frame(summary(contrast(e, "trt.vs.ctrl1", adjust = "none")))
  rat <- as.data.frame(summary(contrast(regrid(e, transform = "log"), "trt.vs.ctrl1", adjust = "none")))
  lv <- as.character(s[[var]])
  c(list(name = name,
         means = lapply(seq_len(nrow(s)), function(i) list(by = list(), level = lv[i], mean = s[i, 2], se = s$SE[i])),
         contrasts = lapply(seq_len(nrow(dif)), function(i) {
           r <- exp(rat$estimate[i])
           list(by = list(), level = lv[i + 1], diff = dif$estimate[i], diff_se = dif$SE[i], ratio = r, ratio_se = r * rat$SE[i])
         })), extra)
}

cases <- list()
m <- glm(duplicated ~ condition + model + x, binomial, d, control = tightGLM)
cases[[length(cases) + 1]] <- emm("glm_logit", m, "condition",
  list(fit = "glm", family = "binomial", link = "logit", formula = "duplicated ~ condition + model + x"))
g <- geeglm(duplicated ~ condition + model + x, binomial, d, id = task, corstr = "exchangeable",
            control = geese.control(epsilon = 1e-12, maxit = 100))
cases[[length(cases) + 1]] <- emm("gee_geepack", g, "condition",
  list(fit = "gee", family = "binomial", link = "logit", formula = "duplicated ~ condition + model + x",
       group = "task", corr = "exchangeable", convention = "geepack"))

# G-computation from a fit's coefficients and vcov().
tightG <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                       optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
# mean and its derivative in eta of the inverse logit of eta, at the
# population level (s = 0) or integrated over N(0, s^2); other links at s = 0.
mu <- function(eta, s, link = make.link("logit")) {
  if (s == 0) return(cbind(link$linkinv(eta), link$mu.eta(eta)))
  u <- unique(eta)
  f <- function(e, h) integrate(function(z) h(e + s * z) * dnorm(z), -Inf, Inf, rel.tol = 1e-12, abs.tol = 0)$value
  m <- sapply(u, f, h = plogis)
  g <- sapply(u, f, h = dlogis)
  k <- match(eta, u)
  cbind(m[k], g[k])
}
gcomp <- function(name, fit, data, var, base, random, by = NULL) {
  glmm <- inherits(fit, "merMod")
  beta <- if (glmm) fixef(fit) else coef(fit)
  V <- as.matrix(vcov(fit))
  s <- if (random == "marginal") sqrt(sum(sapply(VarCorr(fit), function(v) v[1, 1]))) else 0
  lk <- make.link(family(fit)$link)
  lv <- levels(data[[var]])
  lv <- c(base, setdiff(lv, base))
  groups <- if (is.null(by)) list(all = seq_len(nrow(data))) else split(seq_len(nrow(data)), data[[by]])
  means <- list(); contrasts <- list()
  for (gname in names(groups)) {
    rows <- groups[[gname]]
    est <- list()
    for (l in lv) {
      dd <- data[rows, ]
      dd[[var]] <- factor(l, levels = levels(data[[var]]))
      tt <- delete.response(terms(if (glmm) formula(fit, fixed.only = TRUE) else fit))
      X <- model.matrix(tt, dd)
      eta <- if (glmm) drop(X %*% beta) else predict(fit, dd, type = "link")
      h <- mu(eta, s, lk)
      est[[l]] <- list(mean = mean(h[, 1]), grad = colMeans(X * h[, 2]))
    }
    bylab <- if (is.null(by)) list() else list(gname)
    for (l in lv) {
      means[[length(means) + 1]] <- list(by = bylab, level = l, mean = est[[l]]$mean,
                                         se = sqrt(drop(t(est[[l]]$grad) %*% V %*% est[[l]]$grad)))
    }
    a <- est[[base]]
    for (l in lv[-1]) {
      b <- est[[l]]
      gd <- b$grad - a$grad
      r <- b$mean / a$mean
      gr <- (b$grad - r * a$grad) / a$mean
      contrasts[[length(contrasts) + 1]] <- list(by = bylab, level = l, diff = b$mean - a$mean,
        diff_se = sqrt(drop(t(gd) %*% V %*% gd)), ratio = r, ratio_se = sqrt(drop(t(gr) %*% V %*% gr)))
    }
  }
  list(name = name, fit = if (glmm) "glmm" else "glm", family = family(fit)$family, link = family(fit)$link, random = random,
       formula = paste(deparse(formula(fit)), collapse = ""), variable = var, base = base,
       by = if (is.null(by)) "" else by, means = means, contrasts = contrasts,
       beta = as.list(beta), se = unname(sqrt(diag(V))))
}
p <- glm(tool_calls ~ condition + model + x + offset(log(exposure)), poisson, d, control = tightGLM)
cases[[length(cases) + 1]] <- gcomp("glm_poisson_offset", p, d, "condition", "vanilla", "zero")
va <- read.csv(gzfile("../../mixed/testdata/verbagg.csv.gz"), stringsAsFactors = TRUE)
va$id <- factor(va$id)
fv <- glmer(r2 ~ Anger + Gender + btype + situ + (1 | id) + (1 | item), va, binomial, control = tightG)
cases[[length(cases) + 1]] <- gcomp("glmm_verbagg_zero", fv, va, "btype", "curse", "zero")
cases[[length(cases) + 1]] <- gcomp("glmm_verbagg_marginal", fv, va, "btype", "curse", "marginal")
cases[[length(cases) + 1]] <- gcomp("glmm_verbagg_by_gender", fv, va, "btype", "curse", "zero", by = "Gender")
cb <- read.csv("../mixed/cbpp.csv")
cb$period <- factor(cb$period)
cb$herd <- factor(cb$herd)
fc <- glmer(y ~ period + (1 | herd), cb, binomial, control = tightG)
cases[[length(cases) + 1]] <- gcomp("glmm_cbpp_zero", fc, cb, "period", "1", "zero")
cases[[length(cases) + 1]] <- gcomp("glmm_cbpp_marginal", fc, cb, "period", "1", "marginal")

out <- list(source = sprintf("R %s, emmeans %s, geepack %s, lme4 %s", getRversion(), packageVersion("emmeans"),
                             packageVersion("geepack"), packageVersion("lme4")), cases = cases)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), "ref_R.json")
