#!/usr/bin/env python3
"""Writes clustered.csv, the data of the contrast references (deterministic).

40 tasks (clusters) of 20 to 40 episodes (1,200 in all, task sizes drawn),
each episode in one of three conditions (vanilla, aware, guard) and one of
four models (m1..m4), with a numeric covariate x, an exposure > 0, and
three outcomes sharing a task-level random effect u ~ N(0, 0.6²):

  duplicated ~ Bernoulli(expit(-0.4 + 0.5·[aware] - 0.9·[guard] + model effect + 0.3·x + u))
  tool_calls ~ Poisson(exposure · exp(0.2 + 0.15·[aware] - 0.25·[guard] + 0.1·x + u/2))
  agent_time_s ~ Normal(30 + 4·[aware] + 2·[guard] + 3·x + 5u, 6²)

numpy's PCG64, seed 20260601. Run with any Python 3 and numpy:
  python3 gen_data.py
"""
import csv
import numpy as np

rng = np.random.Generator(np.random.PCG64(20260601))
conds = ["vanilla", "aware", "guard"]
models = ["m1", "m2", "m3", "m4"]
beta_c = {"vanilla": 0.0, "aware": 0.5, "guard": -0.9}
beta_m = {"m1": 0.0, "m2": 0.4, "m3": -0.3, "m4": 0.8}
pois_c = {"vanilla": 0.0, "aware": 0.15, "guard": -0.25}
gaus_c = {"vanilla": 0.0, "aware": 4.0, "guard": 2.0}
sizes = rng.integers(20, 41, size=40)
sizes = (sizes * 1200 / sizes.sum()).round().astype(int)
sizes[-1] += 1200 - sizes.sum()
rows = []
k = 0
for task, m in enumerate(sizes):
    u = rng.normal(0, 0.6)
    for _ in range(m):
        k += 1
        c = conds[rng.integers(3)]
        mod = models[rng.integers(4)]
        x = round(float(rng.normal(0, 1)), 4)
        exposure = round(float(rng.uniform(0.5, 2.0)), 4)
        eta = -0.4 + beta_c[c] + beta_m[mod] + 0.3 * x + u
        y = int(rng.uniform() < 1 / (1 + np.exp(-eta)))
        calls = int(rng.poisson(exposure * np.exp(0.2 + pois_c[c] + 0.1 * x + u / 2)))
        secs = round(float(30 + gaus_c[c] + 3 * x + 5 * u + rng.normal(0, 6)), 4)
        rows.append((f"e{k:04d}", f"T{task + 1:02d}", c, mod, x, exposure, y, calls, secs))
with open("clustered.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["episode_id", "task", "condition", "model", "x", "exposure", "duplicated", "tool_calls", "agent_time_s"])
    w.writerows(rows)
