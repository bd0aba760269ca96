"""statsmodels reference for Cox–Snell and Nagelkerke R² under non-integer
frequency weights (stats.CoxSnell / stats.Nagelkerke with n = Σw).

Writes pseudor2_weighted.csv (40 Bernoulli rows: x, a 0/1 dummy g, y, and a
non-integer frequency weight w; Σw is not a whole number) and prints the
reference JSON. With frequency weights the data stand for Σw Bernoulli
observations, so n = Σw (statsmodels' wnobs); statsmodels'
pseudo_rsquared divides by the number of rows instead, so the R² are
computed here from its llf, llnull and wnobs.

Run from this directory:
    python3 pseudor2_weighted.py > pseudor2_weighted.json
(statsmodels 0.13.5 from Debian's python3-statsmodels, numpy's
RandomState(20261201) for the data.)
"""
import json

import numpy as np
import pandas as pd
import statsmodels.api as sm

rng = np.random.RandomState(20261201)
n = 40
x = np.round(rng.normal(size=n), 3)
g = (rng.uniform(size=n) < 0.5).astype(float)
eta = -0.3 + 0.9 * x - 0.7 * g
y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
w = np.round(rng.uniform(0.3, 2.7, size=n), 3)
pd.DataFrame({"x": x, "g": g, "y": y, "w": w}).to_csv(
    "pseudor2_weighted.csv", index=False, float_format="%.3f")

X = sm.add_constant(np.column_stack([x, g]))
r = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-12)
m = r.model.wnobs
cs = 1 - np.exp(2 * (r.llnull - r.llf) / m)
nk = cs / (1 - np.exp(2 * r.llnull / m))
print(json.dumps({
    "statsmodels": sm.__version__,
    "sum_w": float(m),
    "coef": list(map(float, r.params)),
    "llf": float(r.llf),
    "llnull": float(r.llnull),
    "cox_snell": float(cs),
    "nagelkerke": float(nk),
}, indent=1))
