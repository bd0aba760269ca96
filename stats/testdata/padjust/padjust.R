# Reference multiplicity adjustments for stats.HolmAdjust, BonferroniAdjust,
# BHAdjust and BYAdjust: R's p.adjust on a few vectors (ties, a p-value
# of 1, NA, one test, many tests). NA entries do not count in m: each
# vector is adjusted without its NAs, which are written back as null (the
# Go functions keep NaN in place). R 4.2.2:  Rscript padjust.R
suppressPackageStartupMessages(library(jsonlite))
set.seed(20260603)
vecs <- list(
  paper = c(0.01, 0.04, 0.03, 0.005, 0.2, 0.04),
  ties = c(0.02, 0.02, 0.02, 0.5, 1, 0.001),
  with_na = c(0.03, NA, 0.001, 0.2, NA, 0.04),
  one = c(0.03),
  many = round(c(runif(30)^3, 1e-8, 1e-12), 12)
)
out <- lapply(names(vecs), function(n) {
  p <- vecs[[n]]
  ok <- !is.na(p)
  adj <- function(m) { a <- rep(NA_real_, length(p)); a[ok] <- p.adjust(p[ok], m); a }
  list(name = unbox(n), p = p, holm = adj("holm"), bonferroni = adj("bonferroni"), bh = adj("BH"), by = adj("BY"))
})
writeLines(toJSON(list(source = unbox(sprintf("R %s p.adjust", getRversion())), cases = out), digits = NA, na = "null", pretty = TRUE), "padjust.json")
