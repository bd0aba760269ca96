# Times lme4 on the data of mixed.BenchmarkFitLogitCrossed (mixed/bench_test.go):
# 26,000 rows, crossed random intercepts for 9 models and 40 templates.
# The generator is the same MINSTD stream as benchData, exact in doubles.
#
# Run from this directory:  Rscript bench_lme4.R > bench_lme4.out
suppressPackageStartupMessages(library(lme4))
options(digits = 10)
mod <- 2147483647; s <- 20261130
nm <- 9; nt <- 40; n <- 26000
u <- numeric(nm + nt + 6 * n)
for (k in seq_along(u)) { s <- (48271 * s) %% mod; u[k] <- s / mod }
bm <- 0.5 * sqrt(3) * (2 * u[1:nm] - 1)
bt <- 0.8 * sqrt(3) * (2 * u[nm + 1:nt] - 1)
r <- matrix(u[-(1:(nm + nt))], nrow = 6)   # per row: model, template, c, f, x, y draws
d <- data.frame(model = floor(r[1, ] * nm), template = floor(r[2, ] * nt),
                c = as.numeric(r[3, ] < 0.5), f = floor(r[4, ] * 3), x = 2 * r[5, ] - 1)
eta <- -0.5 + 0.7 * d$c + bm[d$model + 1] + bt[d$template + 1] + c(0, -0.4, 0.3)[d$f + 1]
d$y <- as.integer(r[6, ] < 1 / (1 + exp(-(eta + 0.5 * d$x))))   # continuous variant
d$y0 <- as.integer(r[6, ] < 1 / (1 + exp(-eta)))                 # factors-only variant
cat(sprintf("check (TestBenchData): sum y %d, sum y0 %d, sum x %.10f, sum m*t %d\n",
            sum(d$y), sum(d$y0), sum(d$x), sum(d$model * d$template)))
d$model <- factor(d$model); d$template <- factor(d$template); d$f <- factor(d$f)
tight <- glmerControl(tolPwrss = 1e-12, optimizer = c("bobyqa", "bobyqa"),
                      optCtrl = list(rhoend = 1e-12, maxfun = 1e5))
run <- function(label, formula, control) {
  fit <- NULL
  tm <- system.time(for (r in 1:3) fit <- glmer(formula, d, binomial, control = control))
  # CPU time as well as elapsed: the benchmark machine is shared.
  cat(sprintf("%-22s %.3f s CPU, %.3f s elapsed per fit  beta %s  theta %s  logLik %.7f\n", label,
              (tm[["user.self"]] + tm[["sys.self"]]) / 3, tm[["elapsed"]] / 3,
              paste(sprintf("%.7f", fixef(fit)), collapse = " "),
              paste(sprintf("%.7f", getME(fit, "theta")), collapse = " "), logLik(fit)))
}
run("factors, default", y0 ~ c + f + (1 | model) + (1 | template), glmerControl())
run("factors, tight", y0 ~ c + f + (1 | model) + (1 | template), tight)
run("continuous, default", y ~ c + f + x + (1 | model) + (1 | template), glmerControl())
run("continuous, tight", y ~ c + f + x + (1 | model) + (1 | template), tight)
cat(R.version.string, sprintf("lme4 %s\n", packageVersion("lme4")))
