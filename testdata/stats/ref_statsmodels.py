#!/usr/bin/python3
"""Reference values for stats/ tests from statsmodels (Debian python3-statsmodels
0.13.5) and scipy. Run from this directory: /usr/bin/python3 ref_statsmodels.py
Writes ref_statsmodels.json. Data: datasetA/B/D/S.csv (see gen_data.py).

Notes: statsmodels 0.13.5 tost_proportions_2indep returns the smaller
one-sided p (bug #8213), so the one-sided tests are run separately here and
the TOST p is their max. Kauermann-Carroll has no statsmodels implementation;
"kc" below is a direct numpy transcription of geesmv's definition using the
full n_i x n_i matrices (independent of the Go code's rank-p shortcut).
"""
import json
import warnings
import numpy as np
import pandas as pd
import scipy.stats as st
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.proportion import (proportion_confint, test_proportions_2indep,
                                          confint_proportions_2indep)
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

warnings.simplefilter("ignore")
out = {"source": "statsmodels " + sm.__version__ + ", scipy " + __import__("scipy").__version__}

out["wilson"] = []
for count, nobs, alpha in [(0, 20, .05), (3, 20, .05), (20, 20, .05), (5.5, 12.3, .05), (1, 1, .05),
                           (3, 20, .10), (0.25, 0.5, .05), (17, 40, .01), (123.4, 250.7, .05), (2.7, 3.9, .10)]:
    lo, hi = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    out["wilson"].append(dict(count=count, nobs=nobs, alpha=alpha, lo=lo, hi=hi))

out["mcnemar"] = []
for b, c in [(2, 9), (5, 5), (0, 7), (13, 4), (40, 61), (1, 0), (120, 87)]:
    ex = mcnemar(np.array([[0, b], [c, 0]]), exact=True).pvalue
    m = min(b, c)
    midp = min(1.0, 2 * (st.binom.cdf(m, b + c, .5) - .5 * st.binom.pmf(m, b + c, .5))) if b != c else 1.0
    r = dict(b=b, c=c, exact=ex, midp=midp, chi2cc=None, pcc=None, chi2=None, p=None)  # b = c: library conventions differ (docs/methods.md, McNemar tests)
    if b != c:
        r1 = mcnemar(np.array([[0, b], [c, 0]]), exact=False, correction=True)
        r2 = mcnemar(np.array([[0, b], [c, 0]]), exact=False, correction=False)
        r.update(chi2cc=r1.statistic, pcc=r1.pvalue, chi2=r2.statistic, p=r2.pvalue)
    out["mcnemar"].append(r)

out["adjust"] = []
for p in [[0.01, 0.04, 0.03, 0.005, 0.2, 0.04], [0.001, 0.5, 0.02, 0.02, 0.8, 0.049, 0.3], [0.3]]:
    out["adjust"].append(dict(p=p,
                              holm=list(multipletests(p, method="holm")[1]),
                              bonferroni=list(multipletests(p, method="bonferroni")[1]),
                              bh=list(multipletests(p, method="fdr_bh")[1])))

out["tost"] = []
for x1, n1, x2, n2, margin in [(45, 100, 50, 100, .05), (30, 200, 28, 190, .05), (410, 500, 402, 500, .05),
                               (12, 40, 9, 35, .10), (0, 30, 1, 30, .05)]:
    for method in ["wald", "agresti-caffo", "score"]:
        lo = test_proportions_2indep(x1, n1, x2, n2, value=-margin, method=method, alternative="larger")
        up = test_proportions_2indep(x1, n1, x2, n2, value=margin, method=method, alternative="smaller")
        try:
            ci = confint_proportions_2indep(x1, n1, x2, n2, method=method, alpha=0.10)
        except ValueError:  # statsmodels' root bracketing fails at the edge
            ci = (None, None)
        nc = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", alpha=0.10)
        out["tost"].append(dict(x1=x1, n1=n1, x2=x2, n2=n2, margin=margin, method=method,
                                p_lower=lo.pvalue, p_upper=up.pvalue, p_tost=max(lo.pvalue, up.pvalue),
                                lo90=ci[0], hi90=ci[1], newcombe_lo=nc[0], newcombe_hi=nc[1]))

A = pd.read_csv("datasetA.csv")
def logit_fit(formula, data):
    return smf.logit(formula, data).fit(method="newton", tol=1e-14, maxiter=100, disp=0)
full = logit_fit("y ~ C(c) + C(f) + C(m) + C(h)", A)
mu = full.predict()
y = A["y"].values
n = len(y)
ll, ll0 = full.llf, full.llnull
cs = 1 - np.exp(2 * (ll0 - ll) / n)
out["logisticA"] = dict(coef=list(full.params), se=list(full.bse), ll=ll, ll0=ll0,
                        mcfadden=1 - ll / ll0, coxsnell=cs, nagelkerke=cs / (1 - np.exp(2 * ll0 / n)),
                        tjur=mu[y == 1].mean() - mu[y == 0].mean())
groups = ["c", "f", "m", "h"]
sub = {}
for mask in range(16):
    terms = [g for j, g in enumerate(groups) if mask >> j & 1]
    if not terms:
        sub[mask] = dict(mcfadden=0.0, nagelkerke=0.0, tjur=0.0, coxsnell=0.0)
        continue
    r = logit_fit("y ~ " + " + ".join("C(%s)" % t for t in terms), A)
    m_ = r.predict()
    cs = 1 - np.exp(2 * (r.llnull - r.llf) / n)
    sub[mask] = dict(mcfadden=1 - r.llf / r.llnull, coxsnell=cs,
                     nagelkerke=cs / (1 - np.exp(2 * r.llnull / n)),
                     tjur=m_[y == 1].mean() - m_[y == 0].mean())
out["subsetsA"] = [dict(mask=k, **v) for k, v in sub.items()]

def glm_fit(formula, data):
    return smf.glm(formula, data, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=100)
B = pd.read_csv("datasetB.csv")
D = pd.read_csv("datasetD.csv")
g = glm_fit("y ~ C(period)", B)
out["glmB"] = dict(coef=list(g.params), se=list(g.bse), ll=g.llf)
g = glm_fit("y ~ x1 + x2 + C(g)", D)
out["glmD"] = dict(coef=list(g.params), se=list(g.bse), ll=g.llf, ll0=g.llnull)

def kc_cov(model, res):
    """Kauermann-Carroll via full matrices, geesmv style."""
    X = model.exog; yv = model.endog; beta = res.params
    alpha = model.cov_struct.dep_params if isinstance(model.cov_struct, sm.cov_struct.Exchangeable) else 0.0
    B = 0; Ds = []
    for idx in model.group_indices.values():
        Xi = X[idx]; mu = 1 / (1 + np.exp(-Xi @ beta)); v = mu * (1 - mu)
        ni = len(idx); R = (1 - alpha) * np.eye(ni) + alpha * np.ones((ni, ni))
        V = np.sqrt(v)[:, None] * R * np.sqrt(v)[None, :]
        Vi = np.linalg.inv(V); Dm = Xi * v[:, None]
        B = B + Dm.T @ Vi @ Dm
        Ds.append((Dm, Vi, yv[idx] - mu))
    Binv = np.linalg.inv(B)
    meat = 0
    for Dm, Vi, r in Ds:
        H = Dm @ Binv @ Dm.T @ Vi
        w, P = np.linalg.eig(np.eye(len(r)) - H)
        S = (P @ np.diag(w ** -0.5) @ np.linalg.inv(P)).real
        u = Dm.T @ Vi @ S @ r
        meat = meat + np.outer(u, u)
    return Binv @ meat @ Binv

def gee_fit(formula, groups, data, corr):
    cs = sm.cov_struct.Exchangeable() if corr == "exchangeable" else sm.cov_struct.Independence()
    model = smf.gee(formula, groups, data, family=sm.families.Binomial(), cov_struct=cs)
    res = model.fit(cov_type="bias_reduced", ctol=1e-10, maxiter=200)
    alpha = cs.dep_params if corr == "exchangeable" else None
    return dict(corr=corr, coef=list(res.params),
                robust=list(np.sqrt(np.diag(res.cov_robust))),
                naive=list(np.sqrt(np.diag(res.cov_naive))),
                bias_reduced=list(np.sqrt(np.diag(res.cov_robust_bc))),
                kc=list(np.sqrt(np.diag(kc_cov(model, res)))),
                alpha=alpha, scale=res.scale)
out["geeB"] = [gee_fit("y ~ C(period)", "herd", B, c) for c in ["independence", "exchangeable"]]
out["geeD"] = [gee_fit("y ~ x1 + x2 + C(g)", "cluster", D, c) for c in ["independence", "exchangeable"]]

with open("ref_statsmodels.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
