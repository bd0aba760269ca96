"""The engine's analyses as DataFrames: each function runs one
``limbo-analyze`` command with ``--format json`` and reshapes its output.
No statistic is computed here; see the command's ``--help`` for the method.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ._binary import run

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
    return json.loads(proc.stdout)


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
    """``limbo-analyze rates``: one row per group of ``by`` with n, events,
    p, n_eff and the Wilson interval lo, hi."""
    doc = _json("rates", binary, in_=os.fspath(ledger), outcome=outcome, by=list(by) or None, where=where,
                cluster=cluster, icc_by=list(icc_by) if icc_by else None, weight=weight, level=level)
    rows = [{**r.get("group", {}), **{k: v for k, v in r.items() if k != "group"}} for r in doc["rows"]]
    return pd.DataFrame(rows)


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
    level of ``arm`` on episodes matched by ``pair_by``, one row per comparison."""
    doc = _json("paired", binary, in_=os.fspath(ledger), outcome=outcome, arm=arm, base=base, pair_by=list(pair_by),
                where=where, levels=list(levels) if levels else None, test=test, adjust=adjust, weight=weight)
    return pd.DataFrame(doc["comparisons"])


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
) -> dict[str, Any]:
    """``limbo-analyze tost``: the equivalence test's JSON document."""
    doc: dict[str, Any] = _json("tost", binary, in_=os.fspath(ledger), outcome=outcome, arm=arm, a=a, b=b, margin=margin,
                                paired_by=list(paired_by) if paired_by else None, method=method, where=where)
    return doc


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
    df = pd.DataFrame(coefs)
    df.attrs["doc"] = doc
    return df


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
    cell: row key, row labels, column key and label, value, lo, hi, n, n_eff),
    keyed by table number; title and caption in ``.attrs``."""
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
        df = pd.DataFrame(rows)
        df.attrs.update({k: t.get(k) for k in ("id", "title", "caption")})
        out[int(t["number"])] = df
    return out
