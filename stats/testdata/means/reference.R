# Reference values for stats.MeanCI, stats.PairedT and
# stats.WilcoxonSignedRank (stats/means_reference_test.go).
# Run from this directory: Rscript reference.R
# Writes means_data.csv, paired_data.csv (the inputs) and reference.csv
# (one row per case and quantity, %.17g).
library(sandwich)

out <- data.frame(case = character(), key = character(), value = character())
put <- function(case, key, v) {
  out[nrow(out) + 1, ] <<- list(case, key, sprintf("%.17g", v))
}

## Means: mtcars mpg by cyl; weighted by wt; a generated clustered set.
set.seed(26)
G <- 23
cl <- rep(seq_len(G), times = sample(2:9, G, replace = TRUE))
n <- length(cl)
u <- rnorm(G)[cl]
gen <- data.frame(set = "clustered", group = ifelse(cl %% 3 == 0, "b", "a"),
                  y = round(3 + u + rnorm(n, sd = 2), 3),
                  w = round(runif(n, 0.2, 3), 3), cluster = cl)
mt <- data.frame(set = "mtcars", group = as.character(mtcars$cyl), y = mtcars$mpg,
                 w = mtcars$wt, cluster = seq_len(nrow(mtcars)))
md <- rbind(mt, gen)
write.csv(md, "means_data.csv", row.names = FALSE)

wsd <- function(y, w) {
  m <- sum(w * y) / sum(w)
  sqrt(sum(w * (y - m)^2) / sum(w) * length(y) / (length(y) - 1))
}
for (s in unique(md$set)) {
  for (g in sort(unique(md$group[md$set == s]))) {
    d <- md[md$set == s & md$group == g, ]
    # Unweighted, unclustered: t.test.
    tt <- t.test(d$y)
    k <- paste(s, g, "plain", sep = "/")
    put(k, "mean", mean(d$y)); put(k, "sd", sd(d$y))
    put(k, "se", tt$stderr); put(k, "lo", tt$conf.int[1]); put(k, "hi", tt$conf.int[2])
    # Weighted, unclustered: HC1 sandwich of lm(y ~ 1, weights = w).
    f <- lm(y ~ 1, data = d, weights = w)
    se <- sqrt(vcovHC(f, type = "HC1")[1, 1]); q <- qt(0.975, nrow(d) - 1)
    k <- paste(s, g, "weighted", sep = "/")
    put(k, "mean", coef(f)[[1]]); put(k, "sd", wsd(d$y, d$w)); put(k, "se", se)
    put(k, "lo", coef(f)[[1]] - q * se); put(k, "hi", coef(f)[[1]] + q * se)
    if (s == "clustered") {
      # Weighted and clustered: CR1 (vcovCL, type HC1), t on G - 1 df.
      nG <- length(unique(d$cluster))
      se <- sqrt(vcovCL(f, cluster = ~cluster, type = "HC1", cadjust = TRUE)[1, 1])
      q <- qt(0.975, nG - 1)
      k <- paste(s, g, "clustered", sep = "/")
      put(k, "mean", coef(f)[[1]]); put(k, "se", se); put(k, "df", nG - 1)
      put(k, "lo", coef(f)[[1]] - q * se); put(k, "hi", coef(f)[[1]] + q * se)
      # Unweighted and clustered.
      f0 <- lm(y ~ 1, data = d)
      se <- sqrt(vcovCL(f0, cluster = ~cluster, type = "HC1", cadjust = TRUE)[1, 1])
      k <- paste(s, g, "clustered-unweighted", sep = "/")
      put(k, "mean", coef(f0)[[1]]); put(k, "se", se)
      put(k, "lo", coef(f0)[[1]] - q * se); put(k, "hi", coef(f0)[[1]] + q * se)
    }
  }
}

## Paired: sleep (a zero and ties: normal approximation); generated sets
## without ties (exact, n = 20 and 49) and with ties (n = 80).
sl <- with(sleep, extra[group == 2] - extra[group == 1])
set.seed(7)
pd <- rbind(
  data.frame(set = "sleep", d = sl),
  data.frame(set = "exact20", d = round(rnorm(20, 0.4), 6)),
  data.frame(set = "exact49", d = round(rnorm(49, -0.2), 6)),
  data.frame(set = "ties80", d = round(rnorm(80, 0.3), 0)))
write.csv(pd, "paired_data.csv", row.names = FALSE)
for (s in unique(pd$set)) {
  d <- pd$d[pd$set == s]
  tt <- t.test(d, mu = 0)
  put(s, "t.mean", tt$estimate[[1]]); put(s, "t.t", tt$statistic[[1]])
  put(s, "t.df", tt$parameter[[1]]); put(s, "t.p", tt$p.value)
  put(s, "t.lo", tt$conf.int[1]); put(s, "t.hi", tt$conf.int[2])
  w <- suppressWarnings(wilcox.test(d, mu = 0))
  put(s, "w.v", w$statistic[[1]]); put(s, "w.p", w$p.value)
}
# The sleep data as R documents it: t.test(extra ~ group, paired) uses
# group 1 − group 2; the same test with the sign flipped.
x1 <- sleep$extra[sleep$group == 1]; x2 <- sleep$extra[sleep$group == 2]
tt <- t.test(x1, x2, paired = TRUE)
put("sleep12", "t.t", tt$statistic[[1]]); put("sleep12", "t.p", tt$p.value)
write.csv(out, "reference.csv", row.names = FALSE)
cat(R.version.string, "\n")
