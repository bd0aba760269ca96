# Reference values for stats/ tests from R (Debian r-base 4.2.2, geepack 1.3.9).
# Run from this directory: Rscript ref_R.R   (writes ref_R.json)
# Data: datasetB/D/S.csv (see gen_data.py).
suppressMessages({library(geepack); library(jsonlite)})
out <- list(source = paste("R", getRversion(), "geepack", packageVersion("geepack")))

# Continuity-corrected Wilson (prop.test, correct=TRUE); x = n/2 avoided (R drops the correction there).
cc <- list()
for (a in list(c(3, 20), c(0, 20), c(20, 20), c(7, 9), c(1, 50), c(33, 41))) {
  ci <- prop.test(a[1], a[2], correct = TRUE)$conf.int
  cc[[length(cc) + 1]] <- list(x = a[1], n = a[2], lo = ci[1], hi = ci[2])
}
out$wilson_cc <- cc

# Exact McNemar p and conditional OR with exact (Clopper-Pearson) CI, via binom.test.
mc <- list()
for (bc in list(c(2, 9), c(5, 5), c(0, 7), c(13, 4), c(40, 61), c(7, 0), c(120, 87))) {
  bt <- binom.test(bc[1], bc[1] + bc[2])
  th <- bt$conf.int
  mt <- mcnemar.test(matrix(c(10, bc[2], bc[1], 10), 2, 2), correct = TRUE)
  mc[[length(mc) + 1]] <- list(b = bc[1], c = bc[2], p = bt$p.value,
    or_lo = th[1] / (1 - th[1]), or_hi = if (th[2] < 1) th[2] / (1 - th[2]) else "Inf",
    chi2cc = unname(mt$statistic), pcc = mt$p.value)
}
out$mcnemar <- mc

adj <- list()
for (p in list(c(0.01, 0.04, 0.03, 0.005, 0.2, 0.04), c(0.001, 0.5, 0.02, 0.02, 0.8, 0.049, 0.3), c(0.04, NA, 0.01))) {
  adj[[length(adj) + 1]] <- list(p = p, holm = p.adjust(p, "holm"), bonferroni = p.adjust(p, "bonferroni"),
                                 bh = p.adjust(p, "BH"))
}
out$adjust <- adj

B <- read.csv("datasetB.csv"); B$period <- factor(B$period)
D <- read.csv("datasetD.csv"); D$g <- factor(D$g)
S <- read.csv("datasetS.csv"); S$g <- factor(S$g)

g <- glm(y ~ x1 + x2 + g, binomial, D, control = glm.control(epsilon = 1e-14, maxit = 100))
out$glmD <- list(coef = unname(coef(g)), se = unname(sqrt(diag(vcov(g)))), ll = as.numeric(logLik(g)))

# geepack, iterated tightly; rows must be contiguous by cluster for geepack.
gp <- function(formula, id, data, corstr, scale.fix = FALSE) {
  data <- data[order(data[[id]]), ]
  data$.id <- data[[id]]
  f <- geeglm(formula, id = .id, data = data, family = binomial, corstr = corstr, scale.fix = scale.fix,
              control = geese.control(epsilon = 1e-12, maxit = 200))
  list(corstr = corstr, coef = unname(coef(f)), robust = unname(sqrt(diag(f$geese$vbeta))),
       naive = unname(sqrt(diag(f$geese$vbeta.naiv))),
       alpha = if (corstr == "exchangeable") unname(f$geese$alpha) else NA,
       scale = unname(f$geese$gamma))
}
out$geepackB <- list(gp(y ~ period, "herd", B, "independence"), gp(y ~ period, "herd", B, "exchangeable"))
out$geepackBfix <- gp(y ~ period, "herd", B, "exchangeable", scale.fix = TRUE)
out$geepackD <- list(gp(y ~ x1 + x2 + g, "cluster", D, "independence"), gp(y ~ x1 + x2 + g, "cluster", D, "exchangeable"))

# Firth's penalised likelihood maximised directly with optim (BFGS on the
# analytic gradient, from the glm start) -- an independent check of the Go
# modified-scoring iteration (logistf is not packaged for Debian).
firth <- function(X, y) {
  pl <- function(b) { eta <- X %*% b; mu <- plogis(eta); w <- as.vector(mu * (1 - mu))
    sum(y * eta - log1p(exp(eta))) + 0.5 * determinant(crossprod(X * sqrt(w)))$modulus }
  gr <- function(b) { mu <- as.vector(plogis(X %*% b)); w <- mu * (1 - mu)
    I <- crossprod(X * sqrt(w)); h <- rowSums((X %*% solve(I)) * X) * w
    as.vector(crossprod(X, y - mu + h * (0.5 - mu))) }
  b <- rep(0, ncol(X))
  for (k in 1:3) b <- optim(b, function(b) -pl(b), function(b) -gr(b), method = "BFGS",
                            control = list(reltol = 1e-16, maxit = 10000))$par
  mu <- as.vector(plogis(X %*% b)); I <- crossprod(X * sqrt(mu * (1 - mu)))
  list(coef = b, se = sqrt(diag(solve(I))), grad_max = max(abs(gr(b))))
}
out$firthS <- firth(model.matrix(~ g + x, S), S$y)
out$firthD <- firth(model.matrix(~ x1 + x2 + g, D), D$y)
# Unpenalised glm on S for the record (separated: huge g2 coefficient).
gs <- suppressWarnings(glm(y ~ g + x, binomial, S))
out$glmS <- list(coef = unname(coef(gs)), ll = as.numeric(logLik(gs)))

# One-way ANOVA ICC from R's anova mean squares (docs/methods.md, Clustered effective sample size).
icc <- function(y, cl) {
  cl <- factor(cl); a <- anova(lm(y ~ cl)); msb <- a[1, "Mean Sq"]; msw <- a[2, "Mean Sq"]
  m <- table(cl); N <- length(y); k <- length(m); m0 <- (N - sum(m^2) / N) / (k - 1)
  max(0, (msb - msw) / (msb + (m0 - 1) * msw))
}
out$icc <- list(D = icc(D$y, D$cluster), B = icc(B$y, B$herd), Dx1 = icc(D$x1, D$cluster))

# Linearised variance of a weighted mean, with clusters as PSUs (survey's
# svymean one-stage formula; survey is not installed here, so it is
# transcribed: t_c = sum_c w (y - p)/sum w, v = k/(k-1) sum t_c^2).
dv <- function(y, w, cl) {
  p <- sum(w * y) / sum(w); t <- tapply(w * (y - p), cl, sum) / sum(w); k <- length(t)
  list(p = p, v = k / (k - 1) * sum(t^2))
}
wD <- 1 + (D$cluster %% 3) / 2
out$design <- list(example = dv(c(1,1,0,0,0,1,1,1,0,0), rep(1, 10), c(0,0,0,1,1,2,2,2,2,3)),
                   D = dv(D$y, wD, D$cluster))

writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE, na = "null"), "ref_R.json")
