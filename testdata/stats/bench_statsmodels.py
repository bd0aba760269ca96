#!/usr/bin/python3
"""Times statsmodels on the data of the Go benchmarks in stats/bench_test.go
and shapley/bench_test.go (same splitmix64 rows; checksums are written so a
Go test can confirm the data are identical).

Run from this directory: /usr/bin/python3 bench_statsmodels.py
Writes bench_statsmodels.json (minimum wall time over repeats, in ms).
"""
import json
import os
import time
import warnings

import numpy as np
import statsmodels.api as sm

warnings.simplefilter("ignore")
M = (1 << 64) - 1
N = 26000


def u(i, j):
    z = (i * 0x9E3779B97F4A7C15 + j * 0xBF58476D1CE4E5B9) & M
    z ^= z >> 31
    z = (z * 0x94D049BB133111EB) & M
    z ^= z >> 29
    return (z >> 11) / float(1 << 53)


def expit(x):
    return 1 / (1 + np.exp(-x))


XF = np.zeros((N, 21)); XN = np.zeros((N, 21)); yF = np.zeros(N); yN = np.zeros(N)
cluster = np.zeros(N, dtype=int); levels = np.zeros((N, 4), dtype=int)
XF[:, 0] = 1; XN[:, 0] = 1
for i in range(N):
    cluster[i] = int(u(i, 77) * 36)
    etaF = -0.5
    for g in range(4):
        lv = int(u(i, g + 1) * 6)
        levels[i, g] = lv
        if lv > 0:
            XF[i, 1 + 5 * g + lv - 1] = 1
        etaF += 0.15 * ((lv * (g + 1)) % 4)
    etaF += 0.3 * ((cluster[i] % 5) - 2) / 2
    etaN = -0.2
    for j in range(20):
        x = 2 * u(i, 10 + j) - 1
        XN[i, 1 + j] = x
        etaN += 0.1 * ((j % 5) - 2) * x
    yF[i] = 1.0 if u(i, 99) < expit(etaF) else 0.0
    yN[i] = 1.0 if u(i, 98) < expit(etaN) else 0.0


def best(f, reps=5):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
    return 1000 * min(t)


def shapley16():
    for mask in range(1, 16):
        cols = [0] + [1 + 5 * g + l for g in range(4) if mask >> g & 1 for l in range(5)]
        sm.Logit(yF, XF[:, cols]).fit(disp=0)


out = {
    "source": "statsmodels " + sm.__version__ + ", numpy " + np.__version__,
    "cpus": os.cpu_count(),
    "load_average": os.getloadavg()[0],
    "checksums": {"yF": float(yF.sum()), "yN": float(yN.sum()), "XN": float(XN.sum()),
                  "cluster": int(cluster.sum())},
    "ms": {
        "logit_factors_rows": best(lambda: sm.Logit(yF, XF).fit(disp=0)),
        "glm_factors_rows": best(lambda: sm.GLM(yF, XF, family=sm.families.Binomial()).fit()),
        "logit_numeric": best(lambda: sm.Logit(yN, XN).fit(disp=0)),
        "gee_exchangeable_factors": best(lambda: sm.GEE(yF, XF, groups=cluster, family=sm.families.Binomial(),
                                                        cov_struct=sm.cov_struct.Exchangeable()).fit(), 3),
        "gee_exchangeable_numeric": best(lambda: sm.GEE(yN, XN, groups=cluster, family=sm.families.Binomial(),
                                                        cov_struct=sm.cov_struct.Exchangeable()).fit(), 3),
        "shapley_4_groups_16_fits": best(shapley16, 3),
    },
}
with open("bench_statsmodels.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(json.dumps(out, indent=1))
