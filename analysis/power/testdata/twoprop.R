# Reference values for power.TwoProportions and the design effect
# (analysis/power/closed_test.go). Run: Rscript twoprop.R > twoprop.csv
# Equal arms: R's power.prop.test, one-sided at alpha (two-sided at 2·alpha
# with strict = FALSE is the same number). Unequal arms: the same normal
# approximation written out, with the pooled null variance.
cat("case,p1,p2,n1,n2,alpha,m,rho,power\n")
row <- function(case, p1, p2, n1, n2, alpha, m, rho, pw) {
  cat(sprintf("%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", case, p1, p2, n1, n2, alpha, m, rho, pw))
}
eq <- list(c(0.3, 0.2, 100, 0.05), c(0.10, 0.004, 440, 0.025), c(0.5, 0.4, 50, 0.025), c(0.15, 0.09, 700, 0.05))
for (x in eq) {
  pw <- power.prop.test(n = x[3], p1 = x[1], p2 = x[2], sig.level = x[4], alternative = "one.sided")$power
  row("power.prop.test", x[1], x[2], x[3], x[3], x[4], 1, 0, pw)
}
# Two-sided, strict = FALSE, equals one-sided at alpha/2.
pw <- power.prop.test(n = 120, p1 = 0.25, p2 = 0.15, sig.level = 0.05)$power
row("power.prop.test two-sided", 0.25, 0.15, 120, 120, 0.025, 1, 0, pw)
# Design effect 1 + (m - 1) rho: power.prop.test on n / deff.
deff <- 1 + (20 - 1) * 0.05
pw <- power.prop.test(n = 400 / deff, p1 = 0.3, p2 = 0.2, sig.level = 0.025, alternative = "one.sided")$power
row("power.prop.test deff", 0.3, 0.2, 400, 400, 0.025, 20, 0.05, pw)
# Unequal arms, by the formula.
unequal <- function(p1, p2, n1, n2, alpha) {
  pb <- (n1 * p1 + n2 * p2) / (n1 + n2)
  se0 <- sqrt(pb * (1 - pb) * (1 / n1 + 1 / n2))
  se1 <- sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
  pnorm((p1 - p2 - qnorm(1 - alpha) * se0) / se1)
}
row("formula unequal", 0.105, 0.0037, 440, 543, 0.025, 1, 0, unequal(0.105, 0.0037, 440, 543, 0.025))
row("formula unequal", 0.2, 0.12, 150, 600, 0.05, 1, 0, unequal(0.2, 0.12, 150, 600, 0.05))
