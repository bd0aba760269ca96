"""Reference values for power.McNemar and power.TOST (closed_test.go).

Hand-derived from the formulas with Python's standard library only:
  McNemar (Connor 1987, eq. 3):
    power = Phi((delta*sqrt(n) - z_{1-alpha/2}*sqrt(psi)) / sqrt(psi - delta^2)),
    delta = p10 - p01, psi = p10 + p01
  TOST for two proportions (Chow, Shao and Wang 2008, sec. 4.2):
    power = max(0, Phi((m - d)/se - z_{1-alpha}) + Phi((m + d)/se - z_{1-alpha}) - 1),
    se = sqrt(p1(1-p1)/n1 + p2(1-p2)/n2), d = p1 - p2
Run: python3 mcnemar_tost.py > mcnemar_tost.csv
"""
from math import sqrt
from statistics import NormalDist

N = NormalDist()


def mcnemar(p10, p01, n, alpha):
    d, psi = p10 - p01, p10 + p01
    return N.cdf((d * sqrt(n) - N.inv_cdf(1 - alpha / 2) * sqrt(psi)) / sqrt(psi - d * d))


def tost(p1, p2, n1, n2, margin, alpha):
    se = sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    d, z = p1 - p2, N.inv_cdf(1 - alpha)
    return max(0.0, N.cdf((margin - d) / se - z) + N.cdf((margin + d) / se - z) - 1)


print("case,a,b,c,d,e,f,power")
for p10, p01, n, alpha in [(0.15, 0.05, 100, 0.05), (0.08, 0.02, 300, 0.05), (0.2, 0.1, 60, 0.01), (0.05, 0.04, 1000, 0.1)]:
    print(f"mcnemar,{p10!r},{p01!r},{n!r},{alpha!r},0,0,{mcnemar(p10, p01, n, alpha)!r}")
for p1, p2, n1, n2, m, alpha in [(0.15, 0.13, 700, 3400, 0.05, 0.05), (0.5, 0.5, 400, 400, 0.1, 0.05), (0.2, 0.25, 300, 200, 0.1, 0.025), (0.3, 0.3, 50, 50, 0.05, 0.05)]:
    print(f"tost,{p1!r},{p2!r},{n1!r},{n2!r},{m!r},{alpha!r},{tost(p1, p2, n1, n2, m, alpha)!r}")
