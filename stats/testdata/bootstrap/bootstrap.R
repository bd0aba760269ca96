# Reference bootstrap intervals for stats.PercentileCI and stats.BCaCI.
#
# Three bootstraps made here with boot() (set.seed below): a cluster
# bootstrap of a ratio estimator (events/episodes over 30 clusters of
# unequal size, B = 999), a bootstrap of the variance of 40 exponential
# draws (skewed, B = 1000) and of a median of 26 draws (ties among the
# replicates, B = 1999). For each, replicates.csv holds the replicates and
# jackknife.csv the leave-one-out estimates (one cluster or one draw left
# out); ref.json the estimate and boot.ci's percentile and BCa intervals at
# 95% and 90%, BCa with the influence values L = (n − 1)(θ̄₍.₎ − θ₍ᵢ₎) of
# Efron's acceleration (1987, eq. 6.6; Efron & Tibshirani 1993, eq.
# 14.15). boot's own empinf(type = "jack") centres on θ̂ instead of the
# jackknife mean θ̄₍.₎, which differs for a non-linear statistic such as the
# ratio. R 4.2.2, boot 1.3-28.1 (Debian r-cran-boot):
#   Rscript bootstrap.R
suppressPackageStartupMessages({library(boot); library(jsonlite)})
set.seed(20260602)
cases <- list()
reps <- list(); jacks <- list()
add <- function(name, b) {
  n <- nrow(b$data)
  jack <- sapply(seq_len(n), function(i) b$statistic(b$data, seq_len(n)[-i]))
  L <- (n - 1) * (mean(jack) - jack)
  out <- list(name = name, t0 = b$t0, r = nrow(b$t))
  for (conf in c(0.95, 0.9)) {
    ci <- boot.ci(b, conf = conf, type = c("perc", "bca"), L = L)
    out[[sprintf("perc%02d", round(100 * conf))]] <- unname(ci$percent[4:5])
    out[[sprintf("bca%02d", round(100 * conf))]] <- unname(ci$bca[4:5])
  }
  cases[[length(cases) + 1]] <<- out
  reps[[name]] <<- b$t[, 1]
  jacks[[name]] <<- jack
}
# Clusters: k events of m episodes; the ratio sum(k)/sum(m).
m <- sample(5:40, 30, replace = TRUE)
k <- rbinom(30, m, rbeta(30, 2, 5))
add("cluster_ratio", boot(data.frame(k = k, m = m), function(d, i) sum(d$k[i]) / sum(d$m[i]), R = 999))
x <- rexp(40)
add("exp_variance", boot(data.frame(x = x), function(d, i) var(d$x[i]), R = 1000))
y <- rnorm(26, 10, 3)
add("median_ties", boot(data.frame(y = y), function(d, i) median(d$y[i]), R = 1999))
w <- function(l, file) {
  n <- max(lengths(l))
  write.csv(as.data.frame(lapply(l, function(v) c(v, rep(NA, n - length(v))))), file, row.names = FALSE, na = "")
}
w(reps, "replicates.csv")
w(jacks, "jackknife.csv")
writeLines(toJSON(list(source = sprintf("R %s, boot %s", getRversion(), packageVersion("boot")), cases = cases),
                  digits = NA, auto_unbox = TRUE, pretty = TRUE), "ref.json")
