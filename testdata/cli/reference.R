# Reference values for the CLI tests (cmd/limbo-analyze/*_test.go), computed
# from episodes.csv with R's own estimators. Run from this directory:
#   Rscript reference.R > reference_r.csv
d <- read.csv("episodes.csv", stringsAsFactors = TRUE)
out <- data.frame(case = character(), term = character(), estimate = numeric(), se = numeric())
add <- function(case, m) {
  s <- summary(m)$coefficients
  out <<- rbind(out, data.frame(case = case, term = rownames(s), estimate = s[, 1], se = s[, 2]))
}
# model --family logit --formula "eos ~ contract + condition + difficulty"
add("logit", glm(eos ~ contract + condition + difficulty, family = binomial, data = d,
                 control = glm.control(epsilon = 1e-14, maxit = 100)))
# model --formula "eos ~ C(difficulty) + team" --ref difficulty=2
d$difficulty2 <- relevel(factor(d$difficulty), ref = "2")
add("logit_ref", glm(eos ~ difficulty2 + team, family = binomial, data = d,
                     control = glm.control(epsilon = 1e-14, maxit = 100)))
# paired vanilla vs guard on duplicated: b = 26, c = 5 (exact McNemar = binom.test)
out <- rbind(out, data.frame(case = "mcnemar", term = "p", estimate = binom.test(26, 31)$p.value, se = NA))
write.csv(out, row.names = FALSE, quote = FALSE)
