#!/usr/bin/env python3
"""Reference average predictions and contrasts for analysis.Contrast.

Fits statsmodels GLMs and GEEs to clustered.csv (gen_data.py) and computes,
with marginaleffects, the counterfactual average prediction of each
condition (avg_predictions(variables=, by=)) and the average contrasts of
each condition against vanilla: the difference (comparison "difference")
and the ratio of the averages ("ratioavg"), optionally by model, with their
delta-method standard errors from the fit's covariance (the robust sandwich
for a GEE, statsmodels' default). Writes ref_marginaleffects.json.

Needs Python >= 3.12 (marginaleffects), e.g. with pyenv:
  python3.12 -m venv venv && venv/bin/pip install marginaleffects==0.6.1 \\
      statsmodels==0.15.0 'polars<2' pandas numpy
  venv/bin/python ref_marginaleffects.py
(marginaleffects 0.6.1, statsmodels 0.15.0, polars 1.44.2, numpy 2.5.5.)
Python marginaleffects leaves a GLM's offset out of its predictions, so the
offset case is in ref_R.R instead.
"""
import json

import marginaleffects as me
import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

d = pd.read_csv("clustered.csv")
levels = {"condition": ["vanilla", "aware", "guard"], "model": ["m1", "m2", "m3", "m4"]}
for c, lv in levels.items():
    d[c] = pd.Categorical(d[c], categories=lv)

fam = {"binomial": sm.families.Binomial, "poisson": sm.families.Poisson, "gaussian": sm.families.Gaussian}
links = {"logit": sm.families.links.Logit, "probit": sm.families.links.Probit, "log": sm.families.links.Log, "identity": sm.families.links.Identity}


def fit(case):
    f = fam[case["family"]](link=links[case["link"]]())
    if case["fit"] == "gee":
        cs = sm.cov_struct.Exchangeable() if case["corr"] == "exchangeable" else sm.cov_struct.Independence()
        # A Gaussian GEE's score is on the outcome's scale (seconds): 1e-12
        # is below its rounding; the estimate is the least-squares one.
        ctol = 1e-8 if case["family"] == "gaussian" else 1e-12
        return smf.gee(case["formula"], case["group"], d, family=f, cov_struct=cs).fit(maxiter=500, ctol=ctol)
    return smf.glm(case["formula"], d, family=f).fit(tol=1e-14, maxiter=200)


def rows(res):
    return res.data.to_dicts()


cases = [
    {"name": "glm_logit", "fit": "glm", "family": "binomial", "link": "logit", "formula": "duplicated ~ condition + model + x"},
    {"name": "glm_probit", "fit": "glm", "family": "binomial", "link": "probit", "formula": "duplicated ~ condition + model + x"},
    {"name": "glm_logit_by", "fit": "glm", "family": "binomial", "link": "logit", "formula": "duplicated ~ condition + model + x", "by": "model"},
    {"name": "glm_interaction_by", "fit": "glm", "family": "binomial", "link": "logit", "formula": "duplicated ~ condition * model + x", "by": "model"},
    {"name": "glm_poisson", "fit": "glm", "family": "poisson", "link": "log", "formula": "tool_calls ~ condition + model + x"},
    {"name": "glm_gaussian", "fit": "glm", "family": "gaussian", "link": "identity", "formula": "agent_time_s ~ condition + model + x"},
    {"name": "gee_logit", "fit": "gee", "family": "binomial", "link": "logit", "formula": "duplicated ~ condition + model + x", "group": "task", "corr": "exchangeable"},
    {"name": "gee_logit_by", "fit": "gee", "family": "binomial", "link": "logit", "formula": "duplicated ~ condition * model + x", "group": "task", "corr": "exchangeable", "by": "model"},
    {"name": "gee_poisson", "fit": "gee", "family": "poisson", "link": "log", "formula": "tool_calls ~ condition + x", "group": "task", "corr": "exchangeable"},
    {"name": "gee_gaussian_indep", "fit": "gee", "family": "gaussian", "link": "identity", "formula": "agent_time_s ~ condition + x", "group": "task", "corr": "independence"},
]
out = {"source": "marginaleffects 0.6.1 on statsmodels 0.15.0", "cases": []}
for case in cases:
    m = fit(case)
    by = case.get("by")
    pby = ["condition"] + ([by] if by else [])
    means = rows(me.avg_predictions(m, variables="condition", by=pby))
    kw = {"by": by} if by else {}
    diff = rows(me.avg_comparisons(m, variables={"condition": "reference"}, comparison="difference", **kw))
    ratio = rows(me.avg_comparisons(m, variables={"condition": "reference"}, comparison="ratioavg", **kw))
    rec = dict(case)
    rec["beta"] = dict(zip(m.params.index, map(float, m.params)))
    rec["means"] = [{"by": [str(r[by])] if by else [], "level": str(r["condition"]), "mean": r["estimate"], "se": r["std_error"]} for r in means]
    rec["contrasts"] = []
    for a, b in zip(diff, ratio):
        assert a["contrast"].replace(" - ", "/") == b["contrast"].replace(" / ", "/")
        rec["contrasts"].append({"by": [str(a[by])] if by else [], "level": a["contrast"].split(" - ")[0],
                                 "diff": a["estimate"], "diff_se": a["std_error"], "ratio": b["estimate"], "ratio_se": b["std_error"]})
    out["cases"].append(rec)
with open("ref_marginaleffects.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
