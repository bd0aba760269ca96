# R reference for stats.FisherExact: the two-sided p-value of Fisher's
# exact test (Freeman-Halton for tables larger than 2x2) of each table in
# fisher.csv (counts row by row), by R's fisher.test (FEXACT's network
# algorithm for r x c tables, the conditional hypergeometric for 2 x 2).
# Rows and columns with a zero total are dropped first, as FisherExact does
# (fisher.test requires at least two non-empty rows and columns).
# Run from this directory: Rscript fisher.R > fisher.json
d <- read.csv("fisher.csv", stringsAsFactors = FALSE)
rows <- character(0)
for (i in seq_len(nrow(d))) {
  x <- matrix(as.integer(strsplit(d$counts[i], " ")[[1]]), nrow = d$nrow[i], byrow = TRUE)
  x <- x[rowSums(x) > 0, colSums(x) > 0, drop = FALSE]
  p <- if (nrow(x) < 2 || ncol(x) < 2) 1 else fisher.test(x, workspace = 2e7)$p.value
  rows <- c(rows, sprintf('  {"case": "%s", "p": %.17g}', d$case[i], p))
}
cat(sprintf('{"R": "%s",\n "cases": [\n%s\n ]}\n', R.version.string, paste(rows, collapse = ",\n")))
