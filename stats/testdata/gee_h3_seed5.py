"""statsmodels reference for the GEE separation regression test.

gee_h3_seed5.csv is H3's subset of a seed-5 paper run (analysis/hypotheses.go
func h3: E1/E1s episodes with a fired timeout_post or http500_post fault,
verified recovery, eventual or strong write class), collapsed to
(template, eventual) cells with n episodes of which `duplicated` duplicated.
It was made by

    go run ./cmd/limbo-analyze simulate --design paper --seed 5 \
        --out run.jsonl --episodes ep.csv

and counting the subset's rows of ep.csv per cell. The strong class has one
duplicate in 548 episodes: rare, not separated, so the GEE exists.

Run from this directory: python3 gee_h3_seed5.py > gee_h3_seed5.json
(statsmodels 0.13.5 from Debian's python3-statsmodels).
"""
import json

import numpy as np
import pandas as pd
import statsmodels.api as sm

cells = pd.read_csv("gee_h3_seed5.csv")
rows = []
for c in cells.itertuples():
    rows += [(c.template, c.eventual, 1)] * c.duplicated
    rows += [(c.template, c.eventual, 0)] * (c.n - c.duplicated)
d = pd.DataFrame(rows, columns=["template", "eventual", "y"])
X = sm.add_constant(d[["eventual"]].astype(float))
out = {"statsmodels": sm.__version__, "n": int(len(d))}
for corr, name in [(sm.cov_struct.Exchangeable(), "exchangeable"),
                   (sm.cov_struct.Independence(), "independence")]:
    r = sm.GEE(d["y"], X, groups=d["template"], family=sm.families.Binomial(),
               cov_struct=corr).fit(maxiter=100)
    out[name] = {
        "coef": list(map(float, r.params)),
        "se": list(map(float, r.bse)),
        "p": list(map(float, r.pvalues)),
        "alpha": float(corr.dep_params) if name == "exchangeable" else None,
    }
print(json.dumps(out, indent=1))
