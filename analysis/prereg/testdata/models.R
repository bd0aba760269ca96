# Reference values for analysis/prereg/testdata/models.yaml on the
# committed CLI ledger (testdata/cli/episodes.csv): R 4.2.2, lme4 1.1-31.
# From the repository root:
#   Rscript analysis/prereg/testdata/models.R > analysis/prereg/testdata/models.json
suppressMessages({library(lme4); library(jsonlite)})
d <- read.csv("testdata/cli/episodes.csv", stringsAsFactors = TRUE)
d$condition <- relevel(d$condition, ref = "vanilla")
d$fault_fired <- as.numeric(d$fault_fired == "true")
d$duplicated <- as.numeric(d$duplicated == "true")
z <- qnorm(0.975)
row <- function(est, se, p, q, ratio, n) {
  ci <- c(est - q * se, est + q * se)
  if (ratio) list(value = exp(est), lo = exp(ci[1]), hi = exp(ci[2]), p = p, n = n)
  else list(value = est, lo = ci[1], hi = ci[2], p = p, n = n)
}
out <- list()
# P: Poisson GLM with an interaction; the interaction's rate ratio.
m <- glm(tool_calls ~ condition * contract, family = poisson, data = d)
s <- coef(summary(m))["conditionguard:contractnative", ]
out$P <- row(s[1], s[2], s[4], z, TRUE, nrow(d))
# G: Gaussian GLM (lm); a coefficient with its t interval.
m <- lm(agent_time_s ~ condition + contract, data = d)
s <- coef(summary(m))["contractnative", ]
out$G <- row(s[1], s[2], s[4], qt(0.975, df.residual(m)), FALSE, nrow(d))
# B: binomial probit GLM; a coefficient on the probit scale.
m <- glm(duplicated ~ contract, family = binomial(link = "probit"), data = d, subset = fault_fired == 1)
s <- coef(summary(m))["contractnative", ]
out$B <- row(s[1], s[2], s[4], z, FALSE, sum(d$fault_fired))
# S: Poisson GLMM with a random slope (fault_fired | template), Laplace.
m <- glmer(tool_calls ~ contract + fault_fired + (fault_fired | template), family = poisson, data = d)
s <- coef(summary(m))["contractnative", ]
out$S <- row(s[1], s[2], s[4], z, TRUE, nrow(d))
# ML: Gaussian LMM by maximum likelihood; Wald z interval.
m <- lmer(agent_time_s ~ contract + (1 | template), data = d, REML = FALSE)
s <- coef(summary(m))["contractnative", ]
out$ML <- row(s[1], s[2], 2 * pnorm(-abs(s[3])), z, FALSE, nrow(d))
cat(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "\n")
