#!/usr/bin/env python3
"""Hand computations (Python standard library only) of the estimands of
estimands.yaml on testdata/cli/episodes.csv, for estimands_test.go.

Run from this directory: python3 estimands.py
"""
import csv, math
from statistics import NormalDist

rows = list(csv.DictReader(open("../../../testdata/cli/episodes.csv")))
B = lambda s: s == "true"
ff = [r for r in rows if B(r["fault_fired"])]
z95 = NormalDist().inv_cdf(0.975)
z90 = NormalDist().inv_cdf(0.95)

def wilson(k, n, z):
    p = k / n
    c = p + z*z/(2*n); h = z*math.sqrt(p*(1-p)/n + z*z/(4*n*n)); d = 1 + z*z/n
    return (c-h)/d, (c+h)/d

# R: rate of duplicated, fault fired, native contract (unweighted: n_eff = n)
nat = [r for r in ff if r["contract"] == "native"]
k, n = sum(B(r["duplicated"]) for r in nat), len(nat)
lo, hi = wilson(k, n, z95)
print("R rate_pct", 100*k/n, 100*lo, 100*hi, n)

# D: difference of rates native - keys-everywhere, Wald on n
ke = [r for r in ff if r["contract"] == "keys-everywhere"]
pa = k/n; kb, nb = sum(B(r["duplicated"]) for r in ke), len(ke); pb = kb/nb
se = math.sqrt(pa*(1-pa)/n + pb*(1-pb)/nb); d = pa - pb
print("D diff_pp", 100*d, 100*(d-z95*se), 100*(d+z95*se), n+nb)

# M: exact McNemar, eos, guard (base) vs vanilla and vs aware, pairs on
# (pair_key, contract), all episodes; Holm over the two.
def pairs(base, other):
    idx = {}
    for r in rows:
        idx.setdefault((r["pair_key"], r["contract"]), {})[r["condition"]] = B(r["eos"])
    b = c = m = 0
    for v in idx.values():
        if base in v and other in v:
            m += 1
            b += v[base] and not v[other]
            c += v[other] and not v[base]
    return b, c, m
def exact(b, c):
    n = b + c
    if n == 0: return 1.0
    k = min(b, c)
    return min(1.0, 2*sum(math.comb(n, i) for i in range(k+1))/2**n)
res = {}
for other in ("vanilla", "aware"):
    b, c, m = pairs("guard", other)
    res[other] = (100*(b-c)/m, exact(b, c), m)
ps = sorted(((res[o][1], o) for o in res))
holm = {}
run = 0
for i, (p, o) in enumerate(ps):
    run = max(run, min(1, (len(ps)-i)*p)); holm[o] = run
for o in ("vanilla", "aware"):
    print("M", o, "gain_pp", res[o][0], "p_raw", res[o][1], "p_holm", holm[o], "pairs", res[o][2])

# O: logit duplicated ~ contract, fault fired: OR and Wald CI from the 2x2 table
a, b_ = k, n - k            # native: dup, not
c, d2 = kb, nb - kb         # keys-everywhere
lor = math.log(a*d2/(b_*c)); se = math.sqrt(1/a + 1/b_ + 1/c + 1/d2)
p = 2*(1-NormalDist().cdf(abs(lor/se)))
print("O or", math.exp(lor), math.exp(lor-z95*se), math.exp(lor+z95*se), "p", p, len(ff))

# S: Shapley share of McFadden's R2, duplicated ~ contract + condition,
# fault fired; the two-factor fit by Newton-Raphson.
y = [1.0 if B(r["duplicated"]) else 0.0 for r in ff]
def design(cols):
    X = []
    for r in ff:
        x = [1.0]
        if "contract" in cols: x.append(1.0 if r["contract"] == "native" else 0.0)
        if "condition" in cols: x += [1.0 if r["condition"] == l else 0.0 for l in ("aware", "guard")]
        X.append(x)
    return X
def solve(A, v):
    m = len(v); M = [A[i][:] + [v[i]] for i in range(m)]
    for i in range(m):
        piv = max(range(i, m), key=lambda j: abs(M[j][i])); M[i], M[piv] = M[piv], M[i]
        for j in range(m):
            if j != i:
                f = M[j][i]/M[i][i]
                M[j] = [M[j][t] - f*M[i][t] for t in range(m+1)]
    return [M[i][m]/M[i][i] for i in range(m)]
def loglik(cols):
    X = design(cols); p = len(X[0]); beta = [0.0]*p
    for _ in range(50):
        mu = [1/(1+math.exp(-sum(b*x for b, x in zip(beta, xi)))) for xi in X]
        g = [sum((y[i]-mu[i])*X[i][j] for i in range(len(y))) for j in range(p)]
        H = [[sum(mu[i]*(1-mu[i])*X[i][j]*X[i][k] for i in range(len(y))) for k in range(p)] for j in range(p)]
        beta = [b + s for b, s in zip(beta, solve(H, g))]
    mu = [1/(1+math.exp(-sum(b*x for b, x in zip(beta, xi)))) for xi in X]
    return sum(math.log(m) if yi else math.log(1-m) for yi, m in zip(y, mu))
l0 = loglik([])
r2 = lambda cols: 1 - loglik(cols)/l0
vA, vB, vAB = r2(["contract"]), r2(["condition"]), r2(["contract", "condition"])
phiA = 0.5*vA + 0.5*(vAB - vB)
print("S share_pct contract", 100*phiA/vAB, "total", vAB, len(ff))

# T: TOST (Wald, independent) eos vanilla - aware, all episodes, margin 5 pp
va = [B(r["eos"]) for r in rows if r["condition"] == "vanilla"]
aw = [B(r["eos"]) for r in rows if r["condition"] == "aware"]
p1, p2 = sum(va)/len(va), sum(aw)/len(aw)
se = math.sqrt(p1*(1-p1)/len(va) + p2*(1-p2)/len(aw)); d = p1 - p2
print("T diff_pp", 100*d, 100*(d-z90*se), 100*(d+z90*se), len(va)+len(aw))
