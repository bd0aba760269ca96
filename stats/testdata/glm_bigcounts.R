# R reference for stats.GLM's binomial log-likelihood with trials near
# 10^12 (cbind counts): R's glm computes it by dbinom(log = TRUE)
# (Loader's saddle-point algorithm), without the cancellation of
# lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1), which at these counts
# loses the second decimal. The data (glm_bigcounts.csv) are written here,
# from a fixed seed: 24 rows, x = 0..3, n about 1e12, k binomial-like
# around plogis(-1 + 0.4 x).
# Run from this directory: Rscript glm_bigcounts.R > glm_bigcounts.json
set.seed(37)
x <- rep(0:3, 6)
n <- 1e12 + round(runif(24) * 1e9)
p <- plogis(-1 + 0.4 * x)
k <- round(n * p + rnorm(24) * sqrt(n * p * (1 - p)) * 3)
d <- data.frame(k = k, n = n, x = x)
write.csv(d, "glm_bigcounts.csv", row.names = FALSE, quote = FALSE)
d <- read.csv("glm_bigcounts.csv")
m <- glm(cbind(k, n - k) ~ x, family = binomial, data = d)
cf <- coef(m)
cat(sprintf('{"R": "%s",\n "intercept": %.17g, "x": %.17g,\n "loglik": %.17g, "aic": %.17g, "deviance": %.17g}\n',
  R.version.string, cf[1], cf[2], as.numeric(logLik(m)), AIC(m), deviance(m)))
