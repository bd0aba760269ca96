#!/usr/bin/env python3
"""Out-of-sample check of the simulator (issue #16).

Fits the per-model propensities that E1 identifies on E1 alone, then reports
how the other experiments' tables come out without further fitting:

  * π (re-issue at once after an empty read-back) of each Table 3 model, by
    bisection on its E1 late-commit duplicate rate (Table 3);
  * gemini-3.8-flash's v_to by bisection on its E1 resolvable duplicate
    rate (the only Table 3 model whose rate is not 0-1%); its v_500 follows
    from v_to and the global mechanisms.misleading_500.

Everything else (mechanisms, conditions, cue, harnesses, the other models)
is left as in the profile file. The fitted profile is then simulated at
--seeds, and every percentage of Tables 5-10 and 13 is printed beside the
paper, for the in-sample profile and the E1-fitted one.

The evaluation seeds may overlap the fitting seeds (the check is then out
of the fitted experiment but not out of the fitting draws); the script says
which. --disjoint refuses an overlap, so that every evaluated world is one
the fit never saw (e.g. --fit-seeds 1-3 --seeds 4-8 --disjoint).

Usage: scripts/fidelity/oos.py [--fit-seeds 1-3] [--seeds 1-10] [--iters N]
       [--disjoint] [--bin PATH] [--work DIR] [--out PROFILE.json]
       [--fitted PROFILE.json] [--md TABLE.md]
Run from the repository root. Standard library only.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODELS = ["gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash"]
REPORT = ["table5", "table6", "table7", "table8", "table9", "table10", "table13"]


def seeds_arg(s):
    """Parses "A-B" or "A,B,C" into a list of seeds (argparse type)."""
    try:
        if "-" in s:
            a, b = s.split("-")
            out = list(range(int(a), int(b) + 1))
        else:
            out = [int(x) for x in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds {s!r}: want A-B or A,B,C (integers)")
    if not out:
        raise argparse.ArgumentTypeError(f"seeds {s!r}: empty range")
    return out


def tables(binp, work, prof, seed):
    raw, eps = os.path.join(work, "o.jsonl"), os.path.join(work, "o.graded.jsonl")
    subprocess.run([binp, "simulate", "--design", "paper", "--seed", str(seed), "--out", raw,
                    "--episodes", eps, "--profiles", prof, "--jobs", "2"], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([binp, "tables", "--in", eps, "--compare-paper", "--format", "json"],
                         check=True, stdout=subprocess.PIPE).stdout
    os.remove(raw)
    os.remove(eps)
    return json.loads(out)


def cells(tbls):
    """(table, row) -> (paper, run) for every percentage or percentage-point
    difference (Table 10's deltas, Table 13's gains) with a published value."""
    out = {}
    for tb in tbls:
        for r in tb["rows"]:
            c = {x["column"]: x for x in r["cells"]}
            if c["paper"]["kind"] in ("percent", "pp") and c["paper"]["value"] is not None and c["run"]["value"] is not None:
                out[(tb["id"], r["key"])] = (c["paper"]["value"], c["run"]["value"])
    return out


def mean_cells(binp, work, prof, seeds):
    acc = collections.defaultdict(list)
    paper = {}
    for s in seeds:
        for k, (p, r) in cells(tables(binp, work, prof, s)).items():
            paper[k] = p
            acc[k].append(r)
    return paper, acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit-seeds", default="1-3", type=seeds_arg)
    ap.add_argument("--seeds", default="1-10", type=seeds_arg, help="evaluation seeds")
    ap.add_argument("--disjoint", action="store_true",
                    help="refuse evaluation seeds that overlap the fitting seeds")
    ap.add_argument("--md", default="", help="also write the cell-by-cell table as Markdown to this file")
    ap.add_argument("--iters", type=int, default=7)
    ap.add_argument("--bin", default="")
    ap.add_argument("--work", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--fitted", default="", help="skip the fit and use this E1-fitted profile")
    a = ap.parse_args()
    overlap = sorted(set(a.fit_seeds) & set(a.seeds))
    if a.disjoint and overlap:
        ap.error(f"--disjoint: evaluation seeds share {overlap} with --fit-seeds")
    work = a.work or tempfile.mkdtemp(prefix="limbo-oos-")
    binp = a.bin or os.path.join(work, "limbo-analyze")
    if not a.bin:
        subprocess.run(["go", "build", "-o", binp, "./cmd/limbo-analyze"], check=True)
    base = json.load(open("agent/profiles.json"))
    base_path = os.path.join(work, "insample.json")
    json.dump(base, open(base_path, "w"))
    # Brackets: (param, model, lo, hi, target column); duplicates rise with π
    # and fall with v_to (v_500 is derived from it by the global contrast).
    fit = [("pi", m, 0.0, 1.0, "dup_late", +1) for m in MODELS] + [("v_to", "gemini-3.8-flash", 0.99, 1.0, "dup_resolves", -1)]
    br = {(p, m): [lo, hi] for p, m, lo, hi, _, _ in fit}
    fseeds = a.fit_seeds
    prof = json.loads(json.dumps(base))
    byname = {m["name"]: m for m in prof["models"]}
    path = os.path.join(work, "e1fit.json")
    for it in range(0 if a.fitted else a.iters):
        for p, m, *_ in fit:
            byname[m][p] = round(sum(br[(p, m)]) / 2, 4)
        json.dump(prof, open(path, "w"))
        paper, acc = mean_cells(binp, work, path, fseeds)
        for p, m, _, _, col, sign in fit:
            pv, rv = paper[("table3", f"{m}|{col}")], statistics.mean(acc[("table3", f"{m}|{col}")])
            lo, hi = br[(p, m)]
            if (rv > pv) == (sign > 0):
                br[(p, m)] = [lo, byname[m][p]]
            else:
                br[(p, m)] = [byname[m][p], hi]
        print(f"iteration {it + 1}: " + ", ".join(f"{m} {p}={byname[m][p]}" for p, m, *_ in fit), file=sys.stderr)
    if a.fitted:
        prof = json.load(open(a.fitted))
        byname = {m["name"]: m for m in prof["models"]}
    else:
        for p, m, *_ in fit:
            byname[m][p] = round(sum(br[(p, m)]) / 2, 4)
    json.dump(prof, open(path, "w"), indent=1)
    if a.out:
        json.dump(prof, open(a.out, "w"), indent=1)
    print("E1-fitted values (in-sample profile in brackets):")
    bn = {m["name"]: m for m in base["models"]}
    for p, m, *_ in fit:
        print(f"  {m:18s} {p:6s} {byname[m][p]:.3f} [{bn[m][p]}]")
    seeds = a.seeds
    paper, ins = mean_cells(binp, work, base_path, seeds)
    _, oos = mean_cells(binp, work, path, seeds)
    span = f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ",".join(map(str, seeds))
    if a.fitted:
        print(f"evaluation seeds {span}; the fit was read from {a.fitted}, its seeds are not known here")
    elif overlap:
        print(f"evaluation seeds {span} overlap the fitting seeds at {overlap}: out of the fitted experiment, not of its draws")
    else:
        print(f"evaluation seeds {span} are disjoint from the fitting seeds")
    print(f"Tables 5-10 and 13, mean over seeds {span}: paper | in-sample profile | E1-fitted (out of sample)")
    md = ["| table | row | paper | in-sample | E1-fitted |", "|---|---|---|---|---|"]
    tot = collections.Counter()
    for k in sorted(paper, key=lambda k: (int(k[0][5:]), list(paper).index(k))):
        if k[0] not in REPORT:
            continue
        pi, po = statistics.mean(ins[k]), statistics.mean(oos[k])
        tot["n"] += 1
        tot["ins"] += abs(pi - paper[k]) <= 5
        tot["oos"] += abs(po - paper[k]) <= 5
        tot["ins_abs"] += abs(pi - paper[k])
        tot["oos_abs"] += abs(po - paper[k])
        print(f"  {k[0]:8s} {k[1]:42s} {paper[k]:6.1f} {pi:6.1f} {po:6.1f}")
        row = k[1].replace("|", "\\|")  # a bare | would split the Markdown cell
        md.append(f"| {k[0][5:]} | {row} | {paper[k]:.1f} | {pi:.1f} | {po:.1f} |")
    n = tot["n"]
    summary = (f"cells within 5 points (seed means): in-sample {tot['ins']}/{n}, E1-fitted {tot['oos']}/{n}; "
               f"mean |run - paper|: {tot['ins_abs'] / n:.2f} vs {tot['oos_abs'] / n:.2f}")
    print(summary)
    if a.md:
        with open(a.md, "w") as f:
            f.write(summary + "\n\n" + "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
