# R reference for stats.TangoPaired and stats.TangoPairedCI: Tango's (1998,
# Stat Med 17:891-908) score test and interval for the difference of two
# paired proportions, Delta = p1 - p2 = (b - c)/N, computed here without
# Tango's closed form: the restricted maximum-likelihood estimate of the
# cell probability q21 under H0: Delta = d0 is found numerically (optimize
# on the multinomial log-likelihood with q12 = q21 + d0), then
#   Z(d0) = (b - c - N d0) / sqrt(N (2 q21 + d0 (1 - d0))),
# the non-inferiority p-value of H0: Delta >= d0 is pnorm(Z(d0)), and the
# level interval solves Z(d) = +-qnorm(1 - (1 - level)/2) by uniroot.
# Table as stats.NewcombePaired: a both, b first only, c second only, d neither.
# Run from this directory: Rscript tango_paired.R > tango_paired.json
cases <- read.csv(text = "a,b,c,d,margin
0,0,0,1,0.05
0,0,0,36,0.05
0,0,0,400,0.02
40,0,0,360,0.02
20,0,20,360,0.02
20,80,20,280,0.02
36,9,4,351,0.10
3,1,0,10,0.2
1,0,5,3,0.3
5,2,3,0,0.05
10,25,11,774,0.02
0,3,0,2,0.4")
z95 <- qnorm(0.95)
loglik <- function(q, a, b, c, d, d0) {
  q12 <- q + d0; m <- a + d
  ll <- 0
  if (b > 0) ll <- ll + b * log(q12)
  if (c > 0) ll <- ll + c * log(q)
  if (m > 0) ll <- ll + m * log(1 - q12 - q)
  ll
}
score <- function(a, b, c, d, d0) {
  n <- a + b + c + d
  lo <- max(0, -d0); hi <- (1 - d0) / 2
  q <- optimize(loglik, c(lo, hi), a = a, b = b, c = c, d = d, d0 = d0, maximum = TRUE, tol = 1e-14)$maximum
  v <- n * (2 * q + d0 * (1 - d0))
  if (v <= 0) return(0)
  (b - c - n * d0) / sqrt(v)
}
ci <- function(a, b, c, d, level) {
  z <- qnorm(1 - (1 - level) / 2)
  f <- function(d0, t) score(a, b, c, d, d0) - t
  eps <- 1e-12
  lo <- if (f(-1 + eps, z) < 0) -1 else uniroot(f, c(-1 + eps, (b - c) / (a + b + c + d)), t = z, tol = 1e-13)$root
  hi <- if (f(1 - eps, -z) > 0) 1 else uniroot(f, c((b - c) / (a + b + c + d), 1 - eps), t = -z, tol = 1e-13)$root
  c(lo, hi)
}
rows <- character(0)
for (i in seq_len(nrow(cases))) {
  x <- cases[i, ]
  zm <- score(x$a, x$b, x$c, x$d, x$margin)
  iv <- ci(x$a, x$b, x$c, x$d, 0.90)
  rows <- c(rows, sprintf('  {"a": %d, "b": %d, "c": %d, "d": %d, "margin": %.17g, "z": %.17g, "p_upper": %.17g, "lo90": %.17g, "hi90": %.17g}',
    x$a, x$b, x$c, x$d, x$margin, zm, pnorm(zm), iv[1], iv[2]))
}
cat(sprintf('{"R": "%s",\n "cases": [\n%s\n ]}\n', R.version.string, paste(rows, collapse = ",\n")))
