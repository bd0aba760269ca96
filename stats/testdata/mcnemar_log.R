# R reference for stats.McNemarExactLog10 and stats.McNemarMidPLog10: log10
# of the two-sided exact and mid-p McNemar p-values for the discordant
# counts in mcnemar_log.csv, computed in log space by pbinom/dbinom with
# log.p = TRUE, so p-values far below the smallest double (2^-1074) stay
# finite. For m = min(b, c), n = b + c, X ~ Bin(n, 1/2):
#   exact: min(1, 2 P(X <= m))            (binom.test(b, n)$p.value)
#   mid-p: min(1, 2 [P(X <= m - 1) + P(X = m) / 2]), 1 when b = c
# Run from this directory: Rscript mcnemar_log.R > mcnemar_log.json
d <- read.csv("mcnemar_log.csv")
lse <- function(a, b) { m <- max(a, b); if (m == -Inf) -Inf else m + log(exp(a - m) + exp(b - m)) }
rows <- character(0)
for (i in seq_len(nrow(d))) {
  b <- d$b[i]; c <- d$c[i]; n <- b + c; m <- min(b, c)
  if (n == 0 || b == c) {
    ex <- 0; mid <- 0
  } else {
    ex <- min(0, log(2) + pbinom(m, n, 0.5, log.p = TRUE))
    lo <- if (m > 0) pbinom(m - 1, n, 0.5, log.p = TRUE) else -Inf
    mid <- min(0, log(2) + lse(lo, log(0.5) + dbinom(m, n, 0.5, log = TRUE)))
  }
  if (n == 0) ex <- 0
  rows <- c(rows, sprintf('  {"b": %d, "c": %d, "exact_log10": %.17g, "midp_log10": %.17g}',
                          b, c, ex / log(10), mid / log(10)))
}
cat(sprintf('{"R": "%s",\n "cases": [\n%s\n ]}\n', R.version.string, paste(rows, collapse = ",\n")))
