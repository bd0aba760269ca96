# R reference for stats.LogChoose: log C(n, k) by R's lchoose (nmath
# choose.c: -log(n + 1) - lbeta(n - k + 1, k + 1), lbeta with the Stirling
# corrections of lgammacor, no cancellation of large lgamma values), over
# small and large n up to 2^53, k at both ends and in the middle.
# Run from this directory: Rscript lchoose.R > lchoose.json
ns <- c(0, 1, 2, 5, 9, 10, 11, 19, 20, 50, 100, 1000, 12345, 1e6, 1e9, 1e12, 123456789012345, 1e15, 2^53)
rows <- character(0)
for (n in ns) {
  ks <- unique(c(0, 1, 2, 3, 9, 10, 11, floor(n / 3), floor(n / 2), n - 11, n - 2, n - 1, n))
  ks <- ks[ks >= 0 & ks <= n]
  for (k in ks) {
    rows <- c(rows, sprintf('  {"n": %.17g, "k": %.17g, "lchoose": %.17g}', n, k, lchoose(n, k)))
  }
}
cat(sprintf('{"R": "%s",\n "cases": [\n%s\n ]}\n', R.version.string, paste(rows, collapse = ",\n")))
