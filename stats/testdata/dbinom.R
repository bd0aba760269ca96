# R reference for stats.BinomialLogPMF: dbinom(k, n, p, log = TRUE)
# (Loader's saddle-point algorithm, nmath dbinom.c) over n from 1 to 1e15,
# k at both ends and in the middle, p from 1e-12 to 1 - 1e-12.
# Run from this directory: Rscript dbinom.R > dbinom.json
rows <- character(0)
for (n in c(1, 2, 7, 15, 16, 30, 100, 1000, 1e6, 1e9, 1e12, 1e15)) {
  for (p in c(1e-12, 1e-6, 0.01, 0.09, 0.11, 0.3, 0.5, 0.77, 0.95, 1 - 1e-6, 1 - 1e-12)) {
    ks <- unique(c(0, 1, 2, floor(n * p), round(n * p) + 1, floor(n / 2), n - 1, n))
    ks <- ks[ks >= 0 & ks <= n]
    for (k in ks) {
      rows <- c(rows, sprintf('  {"n": %.17g, "k": %.17g, "p": %.17g, "log": %.17g}', n, k, p, dbinom(k, n, p, log = TRUE)))
    }
  }
}
cat(sprintf('{"R": "%s",\n "cases": [\n%s\n ]}\n', R.version.string, paste(rows, collapse = ",\n")))
