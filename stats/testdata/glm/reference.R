# Reference values for the GLM and GEE tests of package stats and of the
# model command: R's glm (stats) and geepack's geeglm on R's own example
# data sets and on generated data, written with the data they were fitted
# to. Run from this directory: Rscript reference.R
# (R 4.2.2, geepack 1.3.9; tolerances: glm epsilon 1e-14, geese 1e-12.)
suppressMessages({library(geepack); library(lme4)})
options(digits = 17)
refs <- data.frame(case = character(), kind = character(), name = character(), value = numeric())
add <- function(case, kind, name, value) {
  refs <<- rbind(refs, data.frame(case = case, kind = kind, name = name, value = value))
}
# ours converts R's coefficient names to the engine's: a factor column f
# at level l is f[l]; interactions join their parts with ':'.
ours <- function(nm, data) {
  sapply(strsplit(nm, ":", fixed = TRUE), function(parts) {
    paste(sapply(parts, function(p) {
      p <- sub("^C\\(([^)]*)\\)", "\\1", p)
      for (v in names(data)) {
        if ((is.factor(data[[v]]) || is.character(data[[v]])) && startsWith(p, v)) {
          l <- substring(p, nchar(v) + 1)
          if (l %in% as.character(unique(data[[v]]))) return(paste0(v, "[", l, "]"))
        }
      }
      p
    }), collapse = ":")
  })
}
fitglm <- function(case, formula, family, data) {
  m <- glm(formula, family = family, data = data, control = glm.control(epsilon = 1e-14, maxit = 200))
  s <- summary(m)
  nm <- ours(names(coef(m)), data)
  add(case, "coef", nm, coef(m))
  add(case, "se", nm, s$coefficients[, 2])
  add(case, "stat", c("dispersion", "deviance", "null_deviance", "loglik", "aic", "bic", "df_residual"),
      c(s$dispersion, deviance(m), m$null.deviance, as.numeric(logLik(m)), AIC(m), BIC(m), df.residual(m)))
}
fitgee <- function(case, formula, family, data, id, corstr, waves = NULL) {
  data$id__ <- data[[id]]
  args <- list(formula, family = family, data = data, id = data$id__, corstr = corstr,
               control = geese.control(epsilon = 1e-12, maxit = 200))
  if (!is.null(waves)) args$waves <- data[[waves]]
  m <- do.call(geeglm, args)
  nm <- ours(names(coef(m)), data)
  add(case, "coef", nm, coef(m))
  add(case, "se", nm, sqrt(diag(m$geese$vbeta)))
  add(case, "naive", nm, sqrt(diag(m$geese$vbeta.naiv)))
  add(case, "stat", "scale", m$geese$gamma)
  if (corstr != "independence") add(case, "stat", "alpha", m$geese$alpha)
}

# Poisson with a factor interaction (R's warpbreaks; levels in sorted order).
wb <- warpbreaks
wb$tension <- factor(as.character(wb$tension))
write.csv(wb, "warpbreaks.csv", row.names = FALSE)
fitglm("warpbreaks_poisson", breaks ~ wool * tension, poisson, wb)
fitglm("warpbreaks_poisson_identity", breaks ~ wool + tension, poisson(link = "identity"), wb)

# Aggregated binomial (lme4's cbpp) with cbind, three links.
cb <- cbpp
write.csv(cb[, c("herd", "incidence", "size", "period")], "cbpp.csv", row.names = FALSE)
cb$period <- factor(as.character(cb$period))
for (l in c("logit", "probit", "cloglog"))
  fitglm(paste0("cbpp_", l), cbind(incidence, size - incidence) ~ period, binomial(link = l), cb)

# Gaussian: mtcars with a number-by-factor interaction, ToothGrowth.
mt <- mtcars
write.csv(mt[, c("mpg", "wt", "cyl", "hp")], "mtcars.csv", row.names = FALSE)
mt$cyl <- factor(as.character(mt$cyl))
fitglm("mtcars_gaussian", mpg ~ wt * cyl + hp, gaussian, mt)
tg <- ToothGrowth
write.csv(tg, "toothgrowth.csv", row.names = FALSE)
fitglm("toothgrowth_gaussian", len ~ supp * dose, gaussian, tg)
fitglm("toothgrowth_gaussian_log", len ~ supp + dose, gaussian(link = "log"), tg)

# Binary outcomes: geepack's ohio with probit and cloglog links.
data(ohio, package = "geepack")
oh <- ohio[order(ohio$id, ohio$age), ]
write.csv(oh, "ohio.csv", row.names = FALSE)
fitglm("ohio_probit", resp ~ age * smoke, binomial(link = "probit"), oh)
fitglm("ohio_cloglog", resp ~ age * smoke, binomial(link = "cloglog"), oh)
fitglm("ohio_logit", resp ~ age * smoke, binomial, oh)

# Generated: a Poisson rate with exposure (offset), a factor and a number.
set.seed(26)
n <- 600
gen <- data.frame(g = sample(c("a", "b", "c"), n, TRUE), x = round(rnorm(n), 3), t = round(runif(n, 0.5, 4), 3),
                  cl = rep(1:120, each = 5), wave = rep(1:5, 120))
u <- rnorm(120, sd = 0.4)[gen$cl]
gen$y <- rpois(n, gen$t * exp(0.2 + 0.3 * (gen$g == "b") - 0.4 * (gen$g == "c") + 0.5 * gen$x - 0.2 * gen$x * (gen$g == "c") + u))
gen$k <- rbinom(n, 10, plogis(-0.5 + 0.8 * gen$x + u))
gen$n <- 10
write.csv(gen, "generated.csv", row.names = FALSE)
fitglm("generated_poisson_offset", y ~ g * x + offset(log(t)), poisson, gen)
fitglm("generated_cbind_expr", cbind(k, n - k) ~ x + g, binomial, gen)

# GEE (geepack): ohio exchangeable and AR(1), binomial.
oh$wave <- oh$age + 3
fitgee("ohio_gee_exch", resp ~ age * smoke, binomial, oh, "id", "exchangeable")
fitgee("ohio_gee_ar1", resp ~ age * smoke, binomial, oh, "id", "ar1", "wave")
fitgee("ohio_gee_ind", resp ~ age * smoke, binomial, oh, "id", "independence")
# Gaussian AR(1) and exchangeable: dietox (weights of pigs over time).
data(dietox, package = "geepack")
dx <- dietox[order(dietox$Pig, dietox$Time), c("Weight", "Time", "Cu", "Pig", "Evit")]
dx$Cu <- as.integer(dx$Cu)
write.csv(dx, "dietox.csv", row.names = FALSE)
dx$Cu <- factor(as.character(dx$Cu))
fitgee("dietox_gee_ar1", Weight ~ Time * Cu, gaussian, dx, "Pig", "ar1", "Time")
fitgee("dietox_gee_exch", Weight ~ Time + Cu, gaussian, dx, "Pig", "exchangeable")
# Poisson AR(1): seizure counts in long form.
data(seizure, package = "geepack")
sz <- reshape(seizure, direction = "long", varying = c("y1", "y2", "y3", "y4"), v.names = "y", timevar = "period",
              times = 1:4, idvar = "id")
sz <- sz[order(sz$id, sz$period), c("id", "period", "y", "base", "trt", "age")]
sz$lbase <- log(sz$base / 4)
write.csv(sz, "seizure.csv", row.names = FALSE)
fitgee("seizure_gee_ar1", y ~ lbase * trt + age, poisson, sz, "id", "ar1", "period")
fitgee("seizure_gee_exch", y ~ lbase * trt + age, poisson, sz, "id", "exchangeable")
# Generated: Poisson GEE with an offset, AR(1).
fitgee("generated_gee_ar1_offset", y ~ g + x + offset(log(t)), poisson, gen, "cl", "ar1", "wave")

refs$value <- sprintf("%.17g", refs$value)
write.csv(refs, "reference.csv", row.names = FALSE)
