# Reference log10 p-values of McNemar tests whose p underflows float64, for
# analysis.TestMcNemarLog10Reference (analysis/mcnemar_underflow_test.go).
# Run: Rscript testdata/analysis/mcnemar_log10.R
options(digits = 15)
cases <- list(c(0, 1100), c(0, 1500), c(10, 1500), c(3, 5000))
for (bc in cases) {
  b <- bc[1]; c <- bc[2]; n <- b + c
  # exact: 2 P(X <= min(b, c)), X ~ Bin(n, 1/2)
  ex <- (log(2) + pbinom(min(b, c), n, 0.5, log.p = TRUE)) / log(10)
  # mid-p: 2 (P(X <= m) - P(X = m) / 2) = 2 P(X <= m - 1) + P(X = m)
  m <- min(b, c)
  lt <- if (m > 0) log(2) + pbinom(m - 1, n, 0.5, log.p = TRUE) else -Inf
  mid <- log(exp(lt - dbinom(m, n, 0.5, log = TRUE)) + 1) + dbinom(m, n, 0.5, log = TRUE)
  mid <- mid / log(10)
  chi <- pchisq((b - c)^2 / n, 1, lower.tail = FALSE, log.p = TRUE) / log(10)
  chicc <- pchisq((abs(b - c) - 1)^2 / n, 1, lower.tail = FALSE, log.p = TRUE) / log(10)
  cat(sprintf("{%d, %d, %.15g, %.15g, %.15g, %.15g},\n", b, c, ex, mid, chi, chicc))
}
