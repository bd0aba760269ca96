#!/usr/bin/python3
"""Writes the data sets used by stats/ tests (deterministic; rerun to regenerate).

A: docs/methods.md, Data sets: factorial logistic data (Bernoulli rows).
B: lme4 cbpp expanded to Bernoulli rows sorted by herd (docs/methods.md, Data sets).
D: synthetic clustered data with numeric and factor covariates, unequal and
   interleaved (unsorted) clusters, generated with numpy's PCG64 seed 20261130.
S: a small data set with quasi-complete separation (level g=2 is all ones).
"""
import csv
import numpy as np

def write(name, header, rows):
    with open(name, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

rows = []
for c in range(2):
    for f in range(3):
        for m in range(3):
            for h in range(2):
                ones = 2 + 5*c + 2*f + 3*m + 2*h + ((7*c + 5*f + 3*m + 11*h) % 4)
                for e in range(24):
                    rows.append((c, f, m, h, 1 if e < ones else 0))
write("datasetA.csv", ["c", "f", "m", "h", "y"], rows)

herd = [1,1,1,1,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,6,6,6,6,7,7,7,7,8,9,9,9,9,10,10,10,10,11,11,11,11,12,12,12,12,13,13,13,13,14,14,14,14,15,15,15,15]
inc = [2,3,4,0,3,1,1,8,2,0,2,2,0,2,0,5,0,0,1,3,0,0,1,8,1,3,0,12,2,0,0,0,1,1,0,2,0,5,3,1,2,1,0,0,1,2,0,0,11,0,0,0,1,1,1,0]
size = [14,12,9,5,22,18,21,22,16,16,20,10,10,9,6,18,25,24,4,17,17,18,20,16,10,9,5,34,9,6,8,6,22,22,18,22,25,27,22,22,10,8,6,5,21,24,19,23,19,2,3,2,19,15,15,15]
period = [1,2,3,4,1,2,3,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4,1,2,3,4]
rows = []
for hh, i, s, p in zip(herd, inc, size, period):
    for e in range(s):
        rows.append((hh, p, 1 if e < i else 0))
rows.sort(key=lambda r: r[0])  # stable: keeps row order within herd
write("datasetB.csv", ["herd", "period", "y"], rows)

rng = np.random.Generator(np.random.PCG64(20261130))
k = 25
sizes = rng.integers(8, 41, size=k)
u = rng.normal(0, 0.7, size=k)
rows = []
for c in range(k):
    for j in range(sizes[c]):
        x1 = round(float(rng.normal()), 6)
        x2 = round(float(rng.uniform(0, 2)), 6)
        g = int(rng.integers(0, 3))
        eta = -0.4 + 0.8*x1 - 0.5*x2 + 0.6*(g == 1) - 0.3*(g == 2) + u[c]
        y = int(rng.uniform() < 1/(1+np.exp(-eta)))
        rows.append((c + 101, x1, x2, g, y))
order = rng.permutation(len(rows))  # interleave clusters
rows = [rows[i] for i in order]
write("datasetD.csv", ["cluster", "x1", "x2", "g", "y"], rows)

rows = []
for i in range(60):
    g = i % 3
    x = round((i * 37 % 17) / 4.0 - 2, 6)
    if g == 2:
        y = 1
    else:
        y = 1 if (i * 13 + g * 5) % 7 < 3 + (x > 0) else 0
    rows.append((g, x, y))
write("datasetS.csv", ["g", "x", "y"], rows)
