# Reference values for package mixed (Go), computed with lme4.
#
# Run from this directory:  Rscript make.R
# Writes the data sets (*.csv, Bernoulli rows) and ref.csv (case,quantity,index,value).
# R 4.2.2, lme4 1.1-31 (Debian r-cran-lme4). "tight" = tolPwrss 1e-12 and bobyqa with
# rhoend 1e-12 in both stages, so the optimum is converged well below the 1e-4 test tolerance
# (docs/methods.md, GLMM: default lme4 is accurate only to about 1e-3).
suppressPackageStartupMessages(library(lme4))
options(digits = 15)

tight <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                      optCtrl = list(rhoend = 1e-12, maxfun = 1e5))

ref <- data.frame(case = character(), quantity = character(), index = integer(),
                  value = numeric(), stringsAsFactors = FALSE)
put <- function(case, quantity, v) {
  ref <<- rbind(ref, data.frame(case = case, quantity = quantity, index = seq_along(v) - 1L,
                                value = as.numeric(v), stringsAsFactors = FALSE))
}
record <- function(case, fit) {
  put(case, "beta", fixef(fit))
  put(case, "theta", getME(fit, "theta"))   # in lme4's term order, see names below
  put(case, "loglik", as.numeric(logLik(fit)))
  put(case, "deviance", -2 * as.numeric(logLik(fit)))
  put(case, "aic", AIC(fit))
  put(case, "bic", BIC(fit))
  put(case, "se", sqrt(diag(as.matrix(vcov(fit)))))
  if (fit@devcomp$dims[["nAGQ"]] > 0)  # RX-based (conditional on theta) SEs
    put(case, "se_rx", sqrt(diag(as.matrix(vcov(fit, use.hessian = FALSE)))))
  put(case, "singular", as.numeric(isSingular(fit)))
  re <- ranef(fit)
  for (g in names(re))  # one row per level: quantity "mode:<group>=<level>"
    for (l in rownames(re[[g]])) put(case, paste0("mode:", g, "=", l), re[[g]][l, 1])
  cat(case, ": theta names ", paste(names(getME(fit, "theta")), collapse = " "), "\n")
}

# Dataset B (docs/methods.md, Data sets): cbpp as Bernoulli rows, sorted by herd.
data(cbpp, package = "lme4")
rows <- lapply(seq_len(nrow(cbpp)), function(r) {
  k <- cbpp$incidence[r]; m <- cbpp$size[r]
  data.frame(herd = as.integer(as.character(cbpp$herd[r])),
             period = as.integer(as.character(cbpp$period[r])),
             y = c(rep(1L, k), rep(0L, m - k)))
})
B <- do.call(rbind, rows)
B <- B[order(B$herd, seq_len(nrow(B))), ]
write.csv(B, "cbpp.csv", row.names = FALSE, quote = FALSE)
B$herd <- factor(B$herd); B$period <- factor(B$period)
for (q in c(1, 10, 25)) {
  record(sprintf("cbpp_agq%d", q),
         glmer(y ~ period + (1 | herd), B, binomial, nAGQ = q, control = tight))
}
record("cbpp_agq0", glmer(y ~ period + (1 | herd), B, binomial, nAGQ = 0, control = tight))

# Dataset C (docs/methods.md, Data sets): crossed, deterministic integer rule.
C <- expand.grid(r = 0:3, m = 0:3, i = 0:15)[, c("i", "m", "r")]
C$c <- C$i %% 2
C$y <- as.integer(((7 * C$i + 5 * C$m + 3 * C$r) %% 10) < (1 + 2 * C$c + C$m + 2 * (C$i %% 3)))
write.csv(C, "crossed.csv", row.names = FALSE, quote = FALSE)
C$i <- factor(C$i); C$m <- factor(C$m)
record("crossed_laplace", glmer(y ~ c + (1 | m) + (1 | i), C, binomial, control = tight))
record("crossed_i_laplace", glmer(y ~ c + (1 | i), C, binomial, control = tight))
record("crossed_i_agq15", glmer(y ~ c + (1 | i), C, binomial, nAGQ = 15, control = tight))

# Singular case (docs/methods.md, Data sets): theta for instance is 0.
S <- expand.grid(r = 0:2, m = 0:3, i = 0:11)[, c("i", "m", "r")]
S$c <- S$i %% 2
S$y <- as.integer(((7 * S$i + 5 * S$m + 3 * S$r + S$i * S$m) %% 10) < (3 + 2 * S$c + S$m))
write.csv(S, "singular.csv", row.names = FALSE, quote = FALSE)
S$i <- factor(S$i); S$m <- factor(S$m)
record("singular_laplace", glmer(y ~ c + (1 | m) + (1 | i), S, binomial, control = tight))

# Unbalanced design: crossed a (30 levels, 1..40 rows each) x b (7 levels), a continuous and a
# binary covariate, and a nested factor a:s; drawn once from R's RNG and committed as data.
set.seed(20261130)
na <- 30
sizes <- sample(1:40, na, replace = TRUE)
a <- rep(seq_len(na) - 1L, sizes)
n <- length(a)
b <- sample(0:6, n, replace = TRUE, prob = c(0.3, 0.2, 0.15, 0.15, 0.1, 0.07, 0.03))
s <- sample(0:2, n, replace = TRUE)
x <- round(rnorm(n), 3)
z <- rbinom(n, 1, 0.4)
ua <- rnorm(na, 0, 0.8); ub <- rnorm(7, 0, 0.5); us <- rnorm(na * 3, 0, 0.4)
eta <- -0.3 + 0.7 * x - 0.5 * z + ua[a + 1] + ub[b + 1] + us[a * 3 + s + 1]
y <- rbinom(n, 1, plogis(eta))
U <- data.frame(a = a, b = b, s = s, x = x, z = z, y = y)
write.csv(U, "unbalanced.csv", row.names = FALSE, quote = FALSE)
U$a <- factor(U$a); U$b <- factor(U$b); U$as <- factor(paste(U$a, U$s, sep = ":"))
record("unbalanced_crossed", glmer(y ~ x + z + (1 | a) + (1 | b), U, binomial, control = tight))
record("unbalanced_nested", glmer(y ~ x + z + (1 | a) + (1 | as), U, binomial, control = tight))
record("unbalanced_three", glmer(y ~ x + z + (1 | a) + (1 | as) + (1 | b), U, binomial, control = tight))
record("unbalanced_a_agq10", glmer(y ~ x + z + (1 | a), U, binomial, nAGQ = 10, control = tight))

write.csv(ref, "ref.csv", row.names = FALSE, quote = FALSE)
cat(sprintf("%s\n", R.version.string), sprintf("lme4 %s\n", packageVersion("lme4")))
