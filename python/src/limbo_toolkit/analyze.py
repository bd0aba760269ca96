"""The engine's analyses as DataFrames: each function runs one
``limbo-analyze`` command with ``--format json`` and reshapes its output.
No statistic is computed here; see the command's ``--help`` for the method.

Conventions, the same in every function:

- **One scale: percent.** Every rate, share, difference of rates and
  their interval bounds is in percent (0–100), as in the paper's tables:
  ``rates`` gives ``pct``, ``lo``, ``hi``; ``tost`` ``diff_pp`` and its
  bounds; ``paired`` ``gain_pp``; ``tables`` and ``hypotheses`` the cells
  as printed. Arguments keep the CLI's units (``margin=0.05`` is a
  difference of proportions of 0.05, as ``--margin``).
- **Categoricals** for the grouping columns (the ``by`` columns, arms,
  table rows and columns, hypothesis ids and verdicts).
- **Warnings** become Python warnings, one category per code
  (``limbo_toolkit.SeparationWarning``, ...; ``LimboWarning`` is their
  base): filter or escalate them with the ``warnings`` module. The
  whole JSON document is in ``df.attrs["doc"]``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ._binary import run
from ._warn import emit

Path = str | os.PathLike[str]


def _flags(**kw: Any) -> list[str]:
    out: list[str] = []
    for k, v in kw.items():
        if v is None or v is False:
            continue
        flag = "--" + k.rstrip("_").replace("_", "-")
        if v is True:
            out.append(flag)
        elif isinstance(v, (list, tuple)):
            if k == "ref":
                for x in v:
                    out += [flag, str(x)]
            else:
                out += [flag, ",".join(map(str, v))]
        else:
            out += [flag, str(v)]
    return out


def _json(cmd: str, binary: Path | None, **kw: Any) -> Any:
    proc = run([cmd, *_flags(**kw), "--format", "json"], binary=binary)
    doc = json.loads(proc.stdout)
    emit(doc, proc.stderr, stacklevel=4)
    return doc


def _frame(rows: list[dict[str, Any]], categorical: Sequence[str], doc: Any) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in categorical:
        if c in df.columns:
            df[c] = df[c].astype("category")
    df.attrs["doc"] = doc
    return df


def _pct(x: Any) -> Any:
    return None if x is None else 100 * x


def rates(
    ledger: Path,
    outcome: str,
    by: Sequence[str] = (),
    *,
    where: str | None = None,
    cluster: str | None = None,
    icc_by: Sequence[str] | None = None,
    weight: str | None = None,
    level: float | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze rates``: one row per group of ``by`` (categoricals)
    with n, events, the rate ``pct`` (percent), n_eff and the Wilson
    interval ``lo``, ``hi`` (percent)."""
    doc = _json("rates", binary, in_=os.fspath(ledger), outcome=outcome, by=list(by) or None, where=where,
                cluster=cluster, icc_by=list(icc_by) if icc_by else None, weight=weight, level=level)
    rows = []
    for r in doc["rows"]:
        row = {**r.get("group", {}), **{k: v for k, v in r.items() if k not in ("group", "p", "lo", "hi")}}
        row.update(pct=_pct(r.get("p")), lo=_pct(r.get("lo")), hi=_pct(r.get("hi")))
        rows.append(row)
    cols = [*by, "n", "events", "pct", "lo", "hi", "n_eff"]
    df = _frame(rows, list(by), doc)
    return df[[c for c in cols if c in df.columns] + [c for c in df.columns if c not in cols]]


def paired(
    ledger: Path,
    outcome: str,
    arm: str,
    base: str,
    pair_by: Sequence[str],
    *,
    where: str | None = None,
    levels: Sequence[str] | None = None,
    test: str | None = None,
    adjust: str | None = None,
    weight: str | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze paired``: McNemar tests of ``base`` against every other
    level of ``arm`` on episodes matched by ``pair_by``, one row per
    comparison (base, other: categoricals; gain_pp in percentage points)."""
    doc = _json("paired", binary, in_=os.fspath(ledger), outcome=outcome, arm=arm, base=base, pair_by=list(pair_by),
                where=where, levels=list(levels) if levels else None, test=test, adjust=adjust, weight=weight)
    return _frame(doc["comparisons"], ("base", "other"), doc)


def tost(
    ledger: Path,
    outcome: str,
    arm: str,
    a: str,
    b: str,
    *,
    margin: float | None = None,
    paired_by: Sequence[str] | None = None,
    method: str | None = None,
    where: str | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze tost``: the equivalence test as one row: the arms a, b
    and their sizes, ``diff_pp`` (b − a, percentage points) with its 90%
    interval ``lo_pp``, ``hi_pp`` (and Newcombe's), ``margin_pp``, the
    one-sided p-values, ``p_tost`` and ``equivalent``."""
    doc: dict[str, Any] = _json("tost", binary, in_=os.fspath(ledger), outcome=outcome, arm=arm, a=a, b=b, margin=margin,
                                paired_by=list(paired_by) if paired_by else None, method=method, where=where)
    ci = doc.get("ci90") or [None, None]
    nc = doc.get("newcombe90") or [None, None]
    row = {"a": doc.get("a"), "b": doc.get("b"), "n_a": doc.get("n_a"), "n_b": doc.get("n_b"), "pairs": doc.get("pairs"),
           "diff_pp": _pct(doc.get("diff")), "lo_pp": _pct(ci[0]), "hi_pp": _pct(ci[1]),
           "newcombe_lo_pp": _pct(nc[0]), "newcombe_hi_pp": _pct(nc[1]), "margin_pp": _pct(doc.get("margin")),
           "method": doc.get("method"), "p_lower": doc.get("p_lower"), "p_upper": doc.get("p_upper"),
           "p_tost": doc.get("p_tost"), "equivalent": doc.get("equivalent")}
    return _frame([row], ("a", "b"), doc)


def model(
    ledger: Path,
    formula: str,
    *,
    family: str | None = None,
    group: str | None = None,
    where: str | None = None,
    ref: Sequence[str] | None = None,
    firth: bool = False,
    weight: str | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze model``: the coefficient table (one row per term).
    The whole JSON document (fit statistics, warnings) is in ``.attrs["doc"]``."""
    doc = _json("model", binary, in_=os.fspath(ledger), formula=formula, family=family, group=group, where=where,
                ref=list(ref) if ref else None, firth=firth, weight=weight)
    coefs = _find_rows(doc, ("coefficients", "coefs", "terms"))
    return _frame(coefs, (), doc)


def _find_rows(doc: Any, keys: Sequence[str]) -> list[dict[str, Any]]:
    if isinstance(doc, dict):
        for k in keys:
            if isinstance(doc.get(k), list):
                return list(doc[k])
        for v in doc.values():
            found = _find_rows(v, keys)
            if found:
                return found
    return []


def tables(
    ledger: Path,
    table: int | None = None,
    *,
    icc: str | None = None,
    binary: Path | None = None,
) -> dict[int, pd.DataFrame]:
    """``limbo-analyze tables``: each table as a long DataFrame (one row per
    cell: row key, row labels, column key and label (categoricals), the
    cell's kind (percent, pp, p, number, count, ratio, ...), value, lo, hi,
    n, n_eff), keyed by table number; title and caption in ``.attrs``."""
    doc = _json("tables", binary, in_=os.fspath(ledger), table=table, icc=icc)
    out: dict[int, pd.DataFrame] = {}
    for t in doc if isinstance(doc, list) else [doc]:
        labels = {c["key"]: c.get("label", c["key"]) for c in t.get("columns", [])}
        rows = []
        for r in t.get("rows", []):
            for c in r.get("cells", []):
                rows.append({"row": r["key"], "labels": " / ".join(r.get("labels", [])), "column": c["column"],
                             "column_label": labels.get(c["column"], c["column"]),
                             **{k: v for k, v in c.items() if k != "column"}})
        df = _frame(rows, ("row", "column", "column_label", "kind"), t)
        df.attrs.update({k: t.get(k) for k in ("id", "title", "caption")})
        out[int(t["number"])] = df
    return out


def means(
    ledger: Path,
    outcome: str,
    by: Sequence[str] = (),
    *,
    where: str | None = None,
    cluster: str | None = None,
    weight: str | None = None,
    level: float | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze means``: one row per group of ``by`` (categoricals)
    with n, sum_w, mean, sd, se, clusters, df and the t interval lo, hi (in
    the outcome's own unit)."""
    doc = _json("means", binary, in_=os.fspath(ledger), outcome=outcome, by=list(by) or None, where=where,
                cluster=cluster, weight=weight, level=level)
    rows = [{**r.get("group", {}), **{k: v for k, v in r.items() if k != "group"}} for r in doc["rows"]]
    return _frame(rows, list(by), doc)


def shapley(
    ledger: Path,
    formula: str,
    *,
    r2: str | None = None,
    where: str | None = None,
    ref: Sequence[str] | None = None,
    weight: str | None = None,
    binary: Path | None = None,
) -> pd.DataFrame:
    """``limbo-analyze shapley``: one row per factor (categorical) with its
    Shapley value (pseudo-R² points) and ``share`` of the total (percent);
    ``.attrs["total"]`` is the full model's pseudo-R²."""
    doc = _json("shapley", binary, in_=os.fspath(ledger), formula=formula, r2=r2, where=where,
                ref=list(ref) if ref else None, weight=weight)
    rows = [{"factor": f["name"], "value": f.get("value"), "share": f.get("share")} for f in doc.get("factors", [])]
    df = _frame(rows, ("factor",), doc)
    df.attrs.update(total=doc.get("total"), n=doc.get("n"), r2=doc.get("r2"))
    return df


def hypotheses(ledger: Path, *, binary: Path | None = None) -> pd.DataFrame:
    """``limbo-analyze hypotheses``: the paper's H1–H6, one row per
    statistic of each (id and verdict categoricals, the statistic's name,
    value, lo, hi, n: rates and shares in percent, odds ratios and
    p-values as such); the statements, rules and results in
    ``.attrs["doc"]``."""
    doc = _json("hypotheses", binary, in_=os.fspath(ledger))
    rows = [{"id": h["id"], "verdict": h["verdict"], "stat": s["name"],
             **{k: s.get(k) for k in ("value", "lo", "hi", "n")}}
            for h in doc for s in h.get("stats", [])]
    return _frame(rows, ("id", "verdict"), doc)


def power(
    *,
    pilot: Path | None = None,
    sizes: Sequence[float] | None = None,
    reps: int | None = None,
    seed: int | None = None,
    binary: Path | None = None,
    **flags: Any,
) -> pd.DataFrame:
    """``limbo-analyze power``: the power of each preregistered hypothesis
    at each size, one row per hypothesis (categorical ``id``, ``analysis``)
    and size: ``power`` and its interval ``lo``, ``hi``, and the share of
    replications that were not computable, all in percent; other ``power``
    flags as keyword arguments (``jobs=2``)."""
    doc = _json("power", binary, pilot=os.fspath(pilot) if pilot else None,
                sizes=[str(x) for x in sizes] if sizes else None, reps=reps, seed=seed, **flags)
    rows = [{"id": h["id"], "analysis": h.get("analysis"), "size": pt.get("size"), "power": _pct(pt.get("power")),
             "lo": _pct(pt.get("power_lo")), "hi": _pct(pt.get("power_hi")),
             "not_computable": _pct(pt.get("not_computable"))}
            for h in doc.get("hypotheses", []) for pt in h.get("points", [])]
    return _frame(rows, ("id", "analysis"), doc)


def validate(ledger: Path, *, strict: bool = False, binary: Path | None = None) -> pd.DataFrame:
    """``limbo-analyze validate --summary``: one row per file with its row
    count, the sum of every boolean column (``sum_<column>``) and the
    number of distinct values of every string column
    (``distinct_<column>``). A ledger with an error raises LimboError
    naming the file, line and field; plausibility warnings become
    LedgerWarning."""
    args = ["validate", "--summary", "--format", "json", *(["--strict"] if strict else []), os.fspath(ledger)]
    proc = run(args, binary=binary)
    docs = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    emit(docs, proc.stderr, stacklevel=3)
    rows = [{"file": d.get("file"), "rows": d.get("rows"),
             **{f"sum_{k}": v for k, v in sorted(d.get("bool_sums", {}).items())},
             **{f"distinct_{k}": v for k, v in sorted(d.get("distinct", {}).items())}} for d in docs]
    return _frame(rows, (), docs)


def gate(
    ledger: Path,
    baseline: Path,
    margin: float,
    *,
    outcome: str | None = None,
    pair_by: Sequence[str] | None = None,
    binary: Path | None = None,
    **flags: Any,
) -> pd.DataFrame:
    """``limbo-analyze gate``: the non-inferiority verdict of ``ledger``
    against ``baseline`` as one row: ``passed`` (the exit status: 0 pass, 1
    fail) and the ``verdict`` line. A usage error raises LimboError."""
    args = ["gate", *_flags(in_=os.fspath(ledger), baseline=os.fspath(baseline), margin=margin, outcome=outcome,
                            pair_by=list(pair_by) if pair_by else None, **flags)]
    proc = run(args, binary=binary, check=False)
    if proc.returncode not in (0, 1) or not proc.stdout.strip() and proc.returncode != 0:
        from ._binary import LimboError, _last_line

        raise LimboError(_last_line(proc.stderr) or f"exit status {proc.returncode}", proc.returncode, proc.stderr,
                         args)
    emit(None, proc.stderr, stacklevel=3)
    verdict = next((ln for ln in proc.stdout.splitlines() if ln.strip()), "")
    return _frame([{"passed": proc.returncode == 0, "verdict": verdict}], (), proc.stdout)
