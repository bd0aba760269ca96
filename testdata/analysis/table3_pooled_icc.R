# Reference values of Table 3 with one template ICC pooled across its
# columns (`tables --icc pooled`, analysis.Table3With) on the committed
# sample ledger testdata/analysis/sample.jsonl.gz. Base R only:
#   Rscript testdata/analysis/table3_pooled_icc.R > testdata/analysis/table3_pooled_icc.csv
# For each column: the episodes in its scope (E1 and E1s, fault fired), the
# one-way ANOVA ICC of its 0/1 outcome over templates from anova(lm()),
# truncated at 0; the pooled ICC is their mean weighted by the number of
# templates; each model's cell is then a Wilson interval on
# n_eff = n / (1 + (n/k - 1) * rho), k the model's templates in the column.
lines <- readLines(gzfile("testdata/analysis/sample.jsonl.gz"))
field <- function(name) {
  m <- regmatches(lines, regexpr(paste0('"', name, '":("[^"]*"|true|false)'), lines))
  sub('"$', "", sub(paste0('^"', name, '":"?'), "", m))
}
d <- data.frame(experiment = field("experiment"), model = field("model"), template = field("template"),
                fault_mode = field("fault_mode"), fault_fired = field("fault_fired") == "true",
                duplicated = field("duplicated") == "true", task_success = field("task_success") == "true",
                eos = field("eos") == "true", stringsAsFactors = FALSE)
stopifnot(nrow(d) == length(lines))
d <- d[d$experiment %in% c("E1", "E1s"), ]
resolves <- c("timeout_post", "http500_post", "partial_batch")
late <- c("timeout_late", "timeout_late_tail")
pre <- c("timeout_pre", "http500_pre", "http429_pre", "conn_refused_pre")
cols <- list(
  dup_resolves = list(scope = d$fault_fired & d$fault_mode %in% resolves, y = d$duplicated),
  dup_late = list(scope = d$fault_fired & d$fault_mode %in% late, y = d$duplicated),
  dup_redelivery = list(scope = d$fault_fired & d$fault_mode == "redelivery", y = d$duplicated),
  ts_pre = list(scope = d$fault_fired & d$fault_mode %in% pre, y = d$task_success),
  eos_faulted = list(scope = d$fault_fired & d$fault_mode != "none", y = d$eos))
icc <- function(y, g) {
  g <- factor(g)
  k <- nlevels(g); n <- length(y)
  if (k < 2 || n <= k || var(y) == 0) return(NA)
  a <- anova(lm(y ~ g))
  msb <- a[["Mean Sq"]][1]; msw <- a[["Mean Sq"]][2]
  m0 <- (n - sum(table(g)^2) / n) / (k - 1)
  max(0, (msb - msw) / (msb + (m0 - 1) * msw))
}
rhos <- sapply(cols, function(c) icc(as.numeric(c$y[c$scope]), d$template[c$scope]))
ks <- sapply(cols, function(c) length(unique(d$template[c$scope])))
ok <- !is.na(rhos)
rho <- sum(rhos[ok] * ks[ok]) / sum(ks[ok])
z <- qnorm(0.975)
wilson <- function(p, n) {
  den <- 1 + z^2 / n
  c <- (p + z^2 / (2 * n)) / den
  h <- z * sqrt(p * (1 - p) / n + z^2 / (4 * n^2)) / den
  c(max(0, c - h), min(1, c + h))
}
cat("model,column,n,pct,lo,hi,neff,rho\n")
for (cn in names(cols)) {
  c <- cols[[cn]]
  for (m in sort(unique(d$model[c$scope]))) {
    s <- c$scope & d$model == m
    n <- sum(s); p <- mean(c$y[s]); k <- length(unique(d$template[s]))
    neff <- n / (1 + (n / k - 1) * rho)
    w <- wilson(p, neff)
    cat(sprintf("%s,%s,%d,%.10f,%.10f,%.10f,%.10f,%.10f\n", m, cn, n, 100 * p, 100 * w[1], 100 * w[2], neff, rho))
  }
}
