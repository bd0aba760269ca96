#!/usr/bin/python3
"""Which template ICC did the paper's Table 3 intervals use? (issue #16)

Table 3 prints, for five models and five columns, a rate and a 95% Wilson
interval on a Kish effective size n_eff = n / (1 + (m − 1)·ρ), where n is
the cell's episode count, m = n / k its mean cluster size over k templates
and ρ the template ICC. Rates and bounds are printed as whole percents, so
each cell pins n_eff, and with it ρ, to an interval.

This script inverts every cell: it finds every n_eff for which some rate
that rounds to the printed one gives a Wilson interval that rounds to the
printed bounds, turns that range into a range of ρ with the cell's n and k,
and intersects the ranges column by column and over the whole table. n and
k come from a graded ledger of the paper design (the counts follow the
design, not the seed):

    limbo-analyze simulate --design paper --seed 1 --out raw.jsonl --episodes g.jsonl
    python3 scripts/fidelity/paper_icc.py g.jsonl

It then prints each column's own ICC in that ledger (one-way ANOVA, as
measure.py) beside them. A per-column reading needs each column's own data
to carry its ρ; the TS column of a model at 100% [91, 100] carries no
variance of its own for that model, so a per-model ICC cannot have made
its interval that wide.
"""
import collections
import json
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from measure import T3_COLS, columns, icc_anova, wilson  # noqa: E402

# Table 3 as printed: rate [lo, hi] in %, per model, in T3_COLS order.
PAPER = {
    "gpt-6-astra": [(0, 0, 9), (25, 13, 42), (74, 57, 86), (100, 91, 100), (79, 66, 89)],
    "gpt-6-sol": [(0, 0, 9), (46, 30, 63), (74, 57, 86), (99, 89, 100), (77, 63, 87)],
    "gpt-5.6-sol": [(1, 0, 10), (65, 48, 79), (74, 57, 86), (98, 88, 100), (75, 61, 85)],
    "claude-opus-5.5": [(0, 0, 9), (68, 51, 82), (74, 57, 86), (100, 91, 100), (72, 58, 83)],
    "gemini-3.8-flash": [(14, 6, 29), (59, 42, 75), (74, 57, 86), (100, 91, 100), (69, 54, 80)],
}


def neff_range(v, lo, hi, n):
    """The n_eff in [1, n] (step 0.05) for which some rate within ±0.5 of v
    (%) gives a Wilson interval whose bounds round to lo and hi."""
    ok = []
    for i in range(20, int(n * 20) + 1):
        ne = i / 20
        for j in range(11):
            p = min(1.0, max(0.0, (v - 0.5 + j / 10) / 100))
            a, b = wilson(p, ne)
            if round(100 * a) == lo and round(100 * b) == hi:
                ok.append(ne)
                break
    return (min(ok), max(ok)) if ok else None


def rho(n, k, ne):
    """ρ from n_eff = n / (1 + (n/k − 1)·ρ)."""
    return (n / ne - 1) / (n / k - 1)


def main():
    if len(sys.argv) != 2:
        print("usage: paper_icc.py GRADED.jsonl", file=sys.stderr)
        sys.exit(2)
    n = collections.Counter()
    tpl = collections.defaultdict(set)
    own = collections.defaultdict(lambda: ([], []))
    with open(sys.argv[1]) as f:
        for line in f:
            e = json.loads(line)
            if e["experiment"] not in ("E1", "E1s"):
                continue
            for c, v in columns(e):
                own[c][0].append(1.0 if v else 0.0)
                own[c][1].append(e["template"])
                if e["model"] in PAPER:
                    n[(e["model"], c)] += 1
                    tpl[(e["model"], c)].add(e["template"])
    print("cell                               n   k   n_eff range     ρ range")
    col_rng, cell_rng = {}, []
    for c_i, c in enumerate(T3_COLS):
        lo_all, hi_all = -math.inf, math.inf
        for m, cells in PAPER.items():
            v, lo, hi = cells[c_i]
            nn, k = n[(m, c)], len(tpl[(m, c)])
            r = neff_range(v, lo, hi, nn) if nn else None
            if r is None:
                print(f"{m + '|' + c:32s} {nn:4d} {k:3d}   no n_eff fits")
                continue
            # A larger n_eff means a smaller ρ.
            r_lo, r_hi = rho(nn, k, r[1]), rho(nn, k, r[0])
            lo_all, hi_all = max(lo_all, r_lo), min(hi_all, r_hi)
            cell_rng.append((r_lo, r_hi))
            print(f"{m + '|' + c:32s} {nn:4d} {k:3d} {r[0]:6.1f}–{r[1]:<6.1f}  {r_lo:.3f}–{r_hi:.3f}")
        col_rng[c] = (lo_all, hi_all)
    print()
    print("column            ρ fitting all five models   own ICC in this ledger")
    t_lo, t_hi = -math.inf, math.inf
    for c in T3_COLS:
        a, b = col_rng[c]
        t_lo, t_hi = max(t_lo, a), min(t_hi, b)
        fit = f"{a:.3f}–{b:.3f}" if a <= b else "none"
        print(f"{c:16s}  {fit:26s}  {icc_anova(*own[c]):.3f}")
    if t_lo <= t_hi:
        print(f"one ρ fits all {len(cell_rng)} cells: {t_lo:.3f}–{t_hi:.3f}")
    else:
        print(f"no single ρ fits all {len(cell_rng)} cells (tightest bounds {t_lo:.3f} > {t_hi:.3f})")
    grid = [i / 1000 for i in range(1001)]
    fit = [sum(a <= r <= b for a, b in cell_rng) for r in grid]
    best = max(fit)
    at = [r for r, k in zip(grid, fit) if k == best]
    print(f"the best single ρ fits {best} of {len(cell_rng)} cells: ρ in {at[0]:.3f}–{at[-1]:.3f}")


if __name__ == "__main__":
    main()
