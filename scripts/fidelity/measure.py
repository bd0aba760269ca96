#!/usr/bin/env python3
"""Fidelity of the simulator over seeds (issue #16).

Simulates the paper design at each seed with the current CLI, then reads
`tables --compare-paper --format json`, `hypotheses --format json` and the
graded episode table, and prints:

  * Table 3 interval-width ratios (run / paper) per column, mean over the
    five models and the seeds;
  * the template ICC (one-way ANOVA, as stats.ICCANOVA) of Table 3's
    columns over E1 (all models pooled), and the widths with one ICC
    pooled across the columns (`tables --icc pooled`);
  * the share of (percent cell, seed) pairs of Tables 3-10 and 13 within
    THRESH points of the paper, and the share a simulator could expect
    given the design's own seed-to-seed spread (see ceiling());
  * each hypothesis's verdicts counted over the seeds, and H1's odds ratios.

Usage: scripts/fidelity/measure.py [--seeds 1-10] [--thresh 5] [--profiles FILE]
       [--bin PATH] [--work DIR] [--json OUT]
Run from the repository root. Standard library only.
"""
import argparse
import collections
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

T3_COLS = ["dup_resolves", "dup_late", "dup_redelivery", "ts_pre", "eos_faulted"]
T3_MODELS = ["gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash"]
RESOLVES = {"timeout_post", "http500_post", "partial_batch"}


def columns(e):
    """The Table 3 columns (and dup_committed, their pooled duplicates) a
    graded E1/E1s episode counts in, with its outcome in each."""
    fm, cols = e["fault_mode"], []
    if fm in RESOLVES:
        cols.append(("dup_resolves", e["duplicated"]))
    if fm in ("timeout_late", "timeout_late_tail"):
        cols.append(("dup_late", e["duplicated"]))
    if fm == "redelivery":
        cols.append(("dup_redelivery", e["duplicated"]))
    if fm in RESOLVES or fm in ("timeout_late", "timeout_late_tail", "redelivery"):
        cols.append(("dup_committed", e["duplicated"]))
    if fm.endswith("_pre"):
        cols.append(("ts_pre", e["task_success"]))
    if e["experiment"] == "E1" and fm != "none":
        cols.append(("eos_faulted", e["eos"]))
    return cols


def seeds_arg(s):
    if "-" in s:
        a, b = s.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in s.split(",")]


def icc_anova(y, cl):
    """One-way ANOVA ICC truncated at 0 (Ridout et al. 1999), as stats.ICCANOVA."""
    groups = collections.defaultdict(list)
    for v, c in zip(y, cl):
        groups[c].append(v)
    k, n = len(groups), len(y)
    if k < 2 or n <= k:
        return float("nan")
    grand = sum(y) / n
    ssb = ssw = sm2 = 0.0
    for vals in groups.values():
        m = len(vals)
        mean = sum(vals) / m
        ssw += sum((v - mean) ** 2 for v in vals)
        ssb += m * (mean - grand) ** 2
        sm2 += m * m
    msb, msw = ssb / (k - 1), ssw / (n - k)
    m0 = (n - sm2 / n) / (k - 1)
    den = msb + (m0 - 1) * msw
    if not den > 0:
        return float("nan")
    return max(0.0, (msb - msw) / den)


def ceiling(allcells, thresh, W, T, out):
    """Print what share of (cell, seed) pairs a simulator could expect
    within thresh points given the seed-to-seed spread the design itself
    produces (each cell's SD over seeds, normal approximation):

      exact mean:  the cell's mean equals the paper's number, so a seed
                   misses only by its own sampling spread, P(|N(0, sd²)| ≤ t);
      replication: the paper's number is itself one draw of the same
                   spread, as a second run of the same study would be,
                   P(|N(0, 2·sd²)| ≤ t).

    Neither can be beaten on average by a simulator whose spread is the
    design's; a cell with one seed has no spread and counts as within."""
    def p_within(sd):
        if sd <= 0:
            return 1.0
        return math.erf(thresh / (sd * math.sqrt(2)))
    exact = repl = 0.0
    by = collections.defaultdict(lambda: [0.0, 0.0])
    for (tid, _), (_, runs) in allcells.items():
        sd = statistics.stdev(runs) if len(runs) > 1 else 0.0
        e, r = len(runs) * p_within(sd), len(runs) * p_within(sd * math.sqrt(2))
        exact += e
        repl += r
        by[tid][0] += e
        by[tid][1] += r
    out["ceiling"] = {"pairs": T, "within": W, "exact_mean": exact, "replication": repl}
    print(f"  ceiling given the design's own spread: exact means {exact:.0f}/{T} = {100 * exact / T:.1f}%;"
          f" a replication of the paper {repl:.0f}/{T} = {100 * repl / T:.1f}%")
    print("    by table (exact means, replication): " + ", ".join(
        f"{tid[5:]}: {e:.0f}, {r:.0f}" for tid, (e, r) in sorted(by.items(), key=lambda x: int(x[0][5:]))))


def wilson(p, n, z=1.959963984540054):
    """Wilson score interval for a proportion p on (effective) size n."""
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / d
    return max(0.0, c - h), min(1.0, c + h)


def run(cmd, out=None):
    with open(out, "w") if out else open(os.devnull, "w") as f:
        subprocess.run(cmd, check=True, stdout=f)


def one_seed(binp, seed, work, profiles):
    raw = os.path.join(work, f"s{seed}.jsonl")
    eps = os.path.join(work, f"s{seed}.graded.jsonl")
    cmd = [binp, "simulate", "--design", "paper", "--seed", str(seed), "--out", raw, "--episodes", eps, "--jobs", "2"]
    if profiles:
        cmd += ["--profiles", profiles]
    run(cmd)
    tj, hj = os.path.join(work, f"t{seed}.json"), os.path.join(work, f"h{seed}.json")
    run([binp, "tables", "--in", eps, "--compare-paper", "--format", "json"], tj)
    run([binp, "hypotheses", "--in", eps, "--format", "json"], hj)
    tables = json.load(open(tj))
    hyps = json.load(open(hj))
    e1 = collections.defaultdict(lambda: ([], []))
    cells = collections.defaultdict(lambda: [0, 0, set()])  # (model, col) -> n, k, templates
    with open(eps) as f:
        for line in f:
            e = json.loads(line)
            if e["experiment"] not in ("E1", "E1s"):
                continue
            for c, v in columns(e):
                e1[c][0].append(1.0 if v else 0.0)
                e1[c][1].append(e["template"])
                ce = cells[(e["model"], c)]
                ce[0] += 1
                ce[1] += 1 if v else 0
                ce[2].add(e["template"])
    iccs = {c: icc_anova(*e1[c]) for c in e1}
    # `tables --icc pooled`: one ICC for every column of Table 3, the mean
    # of the columns' ICCs weighted by their template counts (as
    # analysis.Table3With), instead of one per column.
    defined = [(iccs[c], len(set(e1[c][1]))) for c in T3_COLS if iccs.get(c) == iccs.get(c)]
    rho = sum(r * k for r, k in defined) / sum(k for _, k in defined)
    iccs["pooled"] = rho
    pooled_w = {}
    for (m, c), (n, k, tm) in cells.items():
        if c == "dup_committed":
            continue
        neff = n / (1 + (n / len(tm) - 1) * rho)
        lo, hi = wilson(k / n, neff)
        pooled_w[(m, c)] = 100 * (hi - lo)
    for p in (raw, eps, tj, hj):
        os.remove(p)
    return tables, hyps, iccs, pooled_w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--thresh", type=float, default=5.0)
    ap.add_argument("--profiles", default="")
    ap.add_argument("--bin", default="")
    ap.add_argument("--work", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--detail", default="", help="comma-separated table ids (table7,...) to print cell by cell")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="limbo-fidelity-")
    binp = a.bin
    if not binp:
        binp = os.path.join(work, "limbo-analyze")
        subprocess.run(["go", "build", "-o", binp, "./cmd/limbo-analyze"], check=True)
    seeds = seeds_arg(a.seeds)
    ratios = collections.defaultdict(list)
    pratios = collections.defaultdict(list)
    t3diff = collections.defaultdict(list)
    icc = collections.defaultdict(list)
    within = collections.Counter()
    total = collections.Counter()
    verdicts = collections.defaultdict(collections.Counter)
    h1 = collections.defaultdict(list)
    detail = collections.defaultdict(lambda: [None, [], 0])  # (table, row) -> paper, runs, within
    other = collections.defaultdict(lambda: [None, []])  # Table 10 p and Table 6 time: (table, row) -> paper, runs
    allcells = collections.defaultdict(lambda: [None, []])  # every percent cell: (table, row) -> paper, runs
    want = set(filter(None, a.detail.split(",")))
    for s in seeds:
        tables, hyps, iccs, pooled_w = one_seed(binp, s, work, a.profiles)
        for c, v in iccs.items():
            icc[c].append(v)
        for tb in tables:
            for r in tb["rows"]:
                cells = {c["column"]: c for c in r["cells"]}
                d, p, q = cells["diff"], cells["paper"], cells["run"]
                if (tb["id"] == "table10" and p["kind"] == "p") or (tb["id"] == "table6" and r["key"].endswith("_time")):
                    if q["value"] is not None:
                        oo = other[(tb["id"], r["key"])]
                        oo[0] = p["value"]
                        oo[1].append(q["value"])
                if d["kind"] == "pp" and d["value"] is not None and p["kind"] == "percent":
                    total[tb["id"]] += 1
                    ok = abs(d["value"]) <= a.thresh
                    if ok:
                        within[tb["id"]] += 1
                    ac = allcells[(tb["id"], r["key"])]
                    ac[0] = p["value"]
                    ac[1].append(q["value"])
                    if tb["id"] in want:
                        dd = detail[(tb["id"], r["key"])]
                        dd[0] = p["value"]
                        dd[1].append(q["value"])
                        dd[2] += ok
                if tb["id"] == "table3":
                    m, col = r["key"].split("|")
                    if m in T3_MODELS and p["lo"] is not None and q["lo"] is not None and p["hi"] > p["lo"]:
                        ratios[col].append((q["hi"] - q["lo"]) / (p["hi"] - p["lo"]))
                        if (m, col) in pooled_w:
                            pratios[col].append(pooled_w[(m, col)] / (p["hi"] - p["lo"]))
                        t3diff[col].append(d["value"])
        for h in hyps:
            verdicts[h["id"]][h["verdict"]] += 1
            if h["id"] == "H1":
                for st in h["stats"]:
                    if st["name"] in ("gee_or", "mixed_or") and st["value"] is not None:
                        h1[st["name"]].append(st["value"])
        print(f"seed {s} done", file=sys.stderr)
    out = {"seeds": seeds, "thresh": a.thresh}
    print(f"seeds {a.seeds}")
    print("Table 3 interval width / paper width (mean over models and seeds), mean run − paper (pp):")
    out["t3_width_ratio"] = {}
    for c in T3_COLS:
        r = statistics.mean(ratios[c]) if ratios[c] else float("nan")
        dm = statistics.mean(t3diff[c]) if t3diff[c] else float("nan")
        out["t3_width_ratio"][c] = r
        print(f"  {c:16s} {r:5.2f}   diff {dm:+5.1f}")
    print("  with --icc pooled (one ICC across the columns, 'pooled' below):")
    out["t3_width_ratio_pooled_icc"] = {}
    for c in T3_COLS:
        if pratios[c]:
            out["t3_width_ratio_pooled_icc"][c] = statistics.mean(pratios[c])
            print(f"  {c:16s} {statistics.mean(pratios[c]):5.2f}")
    print("Template ICC over E1 (mean over seeds):")
    out["icc"] = {}
    for c in T3_COLS + ["pooled"]:
        if c in icc:
            v = [x for x in icc[c] if x == x]
            out["icc"][c] = statistics.mean(v) if v else float("nan")
            print(f"  {c:16s} {out['icc'][c]:.3f}")
    W, T = sum(within.values()), sum(total.values())
    out["within_share"] = W / T
    print(f"(cell, seed) pairs within {a.thresh:g} points: {W}/{T} = {100 * W / T:.1f}%")
    for tid in sorted(total, key=lambda x: int(x[5:])):
        print(f"  {tid:8s} {within[tid]}/{total[tid]}")
    ceiling(allcells, a.thresh, W, T, out)
    print("Hypothesis verdicts over seeds:")
    out["verdicts"] = {}
    for hid in sorted(verdicts):
        out["verdicts"][hid] = dict(verdicts[hid])
        print(f"  {hid}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts[hid].items())))
    for k, v in sorted(h1.items()):
        print(f"  H1 {k}: median {statistics.median(v):.2f} (range {min(v):.2f}–{max(v):.2f})")
    print("Table 10 McNemar p and Table 6 time (min): paper, median run (range) over seeds:")
    out["other"] = {}
    for (tid, key), (pv, runs) in sorted(other.items()):
        if pv is None:
            continue
        out["other"][f"{tid}|{key}"] = {"paper": pv, "runs": runs}
        fmt = "{:.2g}" if tid == "table10" else "{:.1f}"
        print(f"  {tid:8s} {key:24s} {fmt.format(pv):>8s} {fmt.format(statistics.median(runs)):>8s} ({fmt.format(min(runs))}–{fmt.format(max(runs))})")
    if want:
        print(f"Cells (paper, mean run over seeds, seeds within {a.thresh:g} points):")
        for (tid, key), (pv, runs, ok) in detail.items():
            print(f"  {tid:8s} {key:40s} {pv:6.1f} {statistics.mean(runs):6.1f} {ok}/{len(runs)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
