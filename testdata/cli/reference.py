"""Reference values for the CLI tests (cmd/limbo-analyze/*_test.go) from
statsmodels (Debian python3-statsmodels 0.13.5). Run from this directory:
    /usr/bin/python3 reference.py > reference_py.csv
"""
import csv
import sys

import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.proportion import proportion_confint

d = pd.read_csv("episodes.csv")
d["eos"] = d["eos"].astype(int)
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["case", "term", "estimate", "se"])


def add(case, params, bse):
    for name in params.index:
        w.writerow([case, name, repr(float(params[name])), repr(float(bse[name]))])


# model --family gee --group task --formula "eos ~ contract + condition"
# (exchangeable, statsmodels moment estimators; robust and bias-reduced SEs)
m = smf.gee("eos ~ contract + condition", "task", d, family=sm.families.Binomial(),
            cov_struct=sm.cov_struct.Exchangeable())
r = m.fit()
add("gee_robust", r.params, r.bse)
w.writerow(["gee_robust", "alpha", repr(float(m.cov_struct.dep_params)), ""])
rb = m.fit(cov_type="bias_reduced")
add("gee_bias_reduced", rb.params, rb.bse)

# rates --outcome eos --weight none: Wilson 95% on 309/423
lo, hi = proportion_confint(int(d["eos"].sum()), len(d), method="wilson")
w.writerow(["wilson", "lo", repr(float(lo)), ""])
w.writerow(["wilson", "hi", repr(float(hi)), ""])
