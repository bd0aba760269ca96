"""Times statsmodels on the same CSV ledger limbo-analyze reads (bench/compare.sh).

Usage: /usr/bin/python3 bench/compare.py LEDGER.csv [TASK...]
(tasks: rates logit shapley gee; default all).
Prints one line per task: "python <task> <seconds> <check value>", the
seconds including reading the CSV, as a user of pandas + statsmodels would
run each analysis from the file. The check value (a log-likelihood, a
coefficient, a row count) lets compare.sh confirm both tools fit the same
model.
"""
import itertools
import sys
import time
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.proportion import proportion_confint

warnings.simplefilter("ignore")
path = sys.argv[1]
FACTORS = ["contract", "condition", "model", "harness"]


def read():
    d = pd.read_csv(path, dtype={"model": str, "task": str, "pair_key": str})
    for c in ("eos", "duplicated"):  # booleans as 0/1 outcomes
        d[c] = d[c].astype(int)
    return d


def timed(name, fn):
    t0 = time.perf_counter()
    check = fn()
    print(f"python {name} {time.perf_counter() - t0:.3f} {check}", flush=True)


def rates():
    d = read()
    d["wy"] = d["weight"] * d["duplicated"]
    d["w2"] = d["weight"] ** 2
    g = d.groupby(["contract", "fault_mode"]).agg(n=("duplicated", "size"), events=("duplicated", "sum"),
                                                   sw=("weight", "sum"), swy=("wy", "sum"), sw2=("w2", "sum"))
    g["p"] = g.swy / g.sw
    g["n_eff"] = g.sw ** 2 / g.sw2
    g["lo"], g["hi"] = proportion_confint(g.p * g.n_eff, g.n_eff, method="wilson")
    return len(g)


def logit():
    d = read()
    f = "eos ~ " + " + ".join(f"C({c})" for c in FACTORS)
    return f"{smf.logit(f, d).fit(disp=0).llf:.4f}"


def shapley():
    # McFadden R² of every subset of the four factors: 2^4 fits.
    d = read()
    ll0 = smf.logit("eos ~ 1", d).fit(disp=0).llf
    v = {(): 0.0}
    for k in range(1, len(FACTORS) + 1):
        for s in itertools.combinations(FACTORS, k):
            ll = smf.logit("eos ~ " + " + ".join(f"C({c})" for c in s), d).fit(disp=0).llf
            v[s] = 1 - ll / ll0
    return f"{v[tuple(FACTORS)]:.6f}"


def gee():
    d = read()
    m = smf.gee("eos ~ C(condition) + C(contract)", "task", d, family=sm.families.Binomial(),
                cov_struct=sm.cov_struct.Exchangeable())
    r = m.fit()
    return f"{r.params.iloc[0]:.6f}"


tasks = sys.argv[2:] or ["rates", "logit", "shapley", "gee"]
for name, fn in [("rates", rates), ("logit", logit), ("shapley", shapley), ("gee", gee)]:
    if name in tasks:
        timed(name, fn)
