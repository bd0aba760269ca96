# Times R (glm, geepack, lme4) on the same CSV ledger limbo-analyze reads
# (bench/compare.sh). Usage: Rscript bench/compare.R LEDGER.csv [TASK...]
# Tasks: rates logit shapley gee glmm (default all). Prints
# "R <task> <seconds> <check value>" per task, the seconds including reading
# the CSV (data.table::fread when installed, else read.csv).
suppressPackageStartupMessages({
  library(geepack)
  library(lme4)
})
argv <- commandArgs(trailingOnly = TRUE)
path <- argv[1]
tasks <- if (length(argv) > 1) argv[-1] else c("rates", "logit", "shapley", "gee", "glmm")
fread <- requireNamespace("data.table", quietly = TRUE)
read <- function() {
  d <- if (fread) as.data.frame(data.table::fread(path, colClasses = list(character = c("model", "task", "pair_key"))))
       else read.csv(path, colClasses = c(model = "character", task = "character", pair_key = "character"))
  for (c in c("contract", "condition", "model", "harness", "fault_mode")) d[[c]] <- factor(d[[c]])
  for (c in c("eos", "duplicated")) d[[c]] <- as.integer(as.logical(d[[c]]))
  d
}
timed <- function(name, fn) {
  if (!(name %in% tasks)) return(invisible())
  t0 <- proc.time()[["elapsed"]]
  check <- fn()
  cat(sprintf("R %s %.3f %s\n", name, proc.time()[["elapsed"]] - t0, check))
}
factors <- c("contract", "condition", "model", "harness")
timed("rates", function() {
  d <- read()
  g <- aggregate(cbind(n = 1, events = duplicated, sw = weight, swy = weight * duplicated, sw2 = weight^2) ~ contract + fault_mode, d, sum)
  g$p <- g$swy / g$sw
  g$n_eff <- g$sw^2 / g$sw2
  z <- qnorm(0.975)
  ctr <- (g$p + z^2 / (2 * g$n_eff)) / (1 + z^2 / g$n_eff)
  half <- z * sqrt(g$p * (1 - g$p) / g$n_eff + z^2 / (4 * g$n_eff^2)) / (1 + z^2 / g$n_eff)
  g$lo <- ctr - half; g$hi <- ctr + half
  nrow(g)
})
timed("logit", function() {
  d <- read()
  m <- glm(reformulate(factors, "eos"), binomial, d)
  sprintf("%.4f", as.numeric(logLik(m)))
})
timed("shapley", function() {
  d <- read()
  ll0 <- as.numeric(logLik(glm(eos ~ 1, binomial, d)))
  r2 <- NA
  for (k in seq_along(factors)) for (s in combn(factors, k, simplify = FALSE)) {
    r2 <- 1 - as.numeric(logLik(glm(reformulate(s, "eos"), binomial, d))) / ll0
  }
  sprintf("%.6f", r2)
})
timed("gee", function() {
  d <- read()
  d <- d[order(d$task), ]  # geepack needs each cluster's rows together
  m <- geeglm(eos ~ condition + contract, binomial, d, id = factor(d$task), corstr = "exchangeable")
  sprintf("%.6f", coef(m)[[1]])
})
timed("glmm", function() {
  d <- read()
  m <- glmer(eos ~ contract + (1 | model), d, binomial)
  sprintf("%.4f", as.numeric(logLik(m)))
})
