"""Exports read back with plain pandas/polars and with the package: every
dictionary column categorical, booleans, integers and floats exact."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

import limbo_toolkit as lt

N_EPISODES = 25930


def _dictionary_columns(path: Path) -> set[str]:
    schema = pq.read_schema(path)
    return {f.name for f in schema if str(f.type).startswith("dictionary")}


def _graded(path: Path) -> pd.DataFrame:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return pd.DataFrame(rows)


def test_plain_pandas_and_polars_give_categoricals(simulated: dict[str, Path]) -> None:
    for table in ("run.parquet", "run.calls.parquet", "run.effects.parquet"):
        path = simulated["parquet"].with_name(table)
        dict_cols = _dictionary_columns(path)
        assert dict_cols, table
        df = pd.read_parquet(path)
        for c in df.columns:
            assert (str(df[c].dtype) == "category") == (c in dict_cols), (table, c, df[c].dtype)
        p = pl.read_parquet(path)
        for c, t in p.schema.items():
            assert (t == pl.Categorical) == (c in dict_cols), (table, c, t)


def test_enumerations_are_dictionary_columns(simulated: dict[str, Path]) -> None:
    cols = _dictionary_columns(simulated["parquet"])
    for c in ("experiment", "model", "contract", "condition", "cue", "fault_mode", "write_class", "read_path",
              "recovery", "template", "task", "focal_write"):
        assert c in cols
    assert "episode_id" not in cols and "pair_key" not in cols


@pytest.mark.parametrize("polars", [False, True])
def test_values_exact(simulated: dict[str, Path], polars: bool) -> None:
    want = _graded(simulated["jsonl"]).set_index("episode_id").sort_index()
    got = lt.read_episodes(simulated["parquet"], polars=polars)
    if polars:
        got = got.to_pandas()
    got = got.set_index("episode_id").sort_index()
    assert len(got) == N_EPISODES == len(want)
    for c in want.columns:
        g, w = got[c], want[c]
        if str(g.dtype) == "category":
            assert list(g.astype(str)) == list(w.astype(str)), c
        elif g.dtype == bool:
            assert w.dtype == bool and (g == w).all(), c
        elif str(g.dtype) == "int64":
            assert (g == w.astype("int64")).all(), c
        elif str(g.dtype) == "float64":
            wf = w.astype("float64")
            assert ((g == wf) | (g.isna() & wf.isna())).all(), c
        else:
            assert list(g) == list(w), c
    assert got["cost_usd"].dtype == "float64"
    for c in ("instance", "focal_index", "seed", "tool_calls"):
        assert str(got[c].dtype) == "int64", c
    for c in ("duplicated", "eos", "task_success", "overclaim", "reversible"):
        assert got[c].dtype == bool, c


def test_calls_and_effects(simulated: dict[str, Path]) -> None:
    calls = lt.read_calls(simulated["parquet"])
    effects = lt.read_effects(simulated["parquet"], polars=True)
    eps = lt.read_episodes(simulated["parquet"])
    assert len(calls) == int(eps["tool_calls"].sum())
    assert str(calls["outcome"].dtype) == "category" and str(calls["seq"].dtype) == "int64"
    assert effects.schema["source"] == pl.Categorical and effects.schema["absorbed"] == pl.Boolean
    assert not any(str(t).startswith("Datetime") for t in effects.schema.values())  # no timestamps: seconds as floats


def test_partitioned_dataset(simulated: dict[str, Path]) -> None:
    ds = simulated["dataset"]
    df = lt.read_episodes(ds)
    assert len(df) == N_EPISODES
    assert str(df["experiment"].dtype) == "category" and str(df["instance"].dtype) == "int64"
    p = lt.read_episodes(ds, polars=True)
    assert p.height == N_EPISODES and p.schema["experiment"] == pl.Categorical and p.schema["instance"] == pl.Int64
    calls = lt.read_calls(ds)
    assert len(calls) == int(df["tool_calls"].sum())
    # The files keep the partition columns, so plain pandas reads the
    # dataset with partition inference off.
    plain = pd.read_parquet(ds, partitioning=None)
    assert len(plain) == N_EPISODES and str(plain["instance"].dtype) == "int64"


def test_glob(simulated: dict[str, Path]) -> None:
    pattern = str(simulated["dataset"] / "experiment=E1" / "**" / "*.parquet")
    df = lt.read_episodes(pattern, glob=True)
    assert len(df) > 0 and set(df["experiment"].astype(str)) == {"E1"}
    with pytest.raises(FileNotFoundError, match="matches no file"):
        lt.read_episodes(str(simulated["dataset"] / "nothing*.parquet"), glob=True)
    # Without glob=True a pattern is a name, and the message says how to expand it.
    with pytest.raises(FileNotFoundError, match=r"no such file.*glob=True"):
        lt.read_episodes(pattern)


def test_literal_names_are_read_literally(simulated: dict[str, Path], tmp_path: Path) -> None:
    # Issue 37, item 3: "runs[1].parquet" is a name, not the class [1]
    # that matches runs1.parquet; "res [v2]/x.parquet" exists and is read.
    src = simulated["parquet"]
    part = next(f for f in sorted(simulated["dataset"].rglob("*.parquet")))
    (tmp_path / "runs1.parquet").write_bytes(part.read_bytes())  # what a glob would read instead
    named = tmp_path / "runs[1].parquet"
    named.write_bytes(src.read_bytes())
    df = lt.read_episodes(named)
    assert len(df) == N_EPISODES
    sub = tmp_path / "res [v2]"
    sub.mkdir()
    for name in ("x.parquet", "x.calls.parquet"):
        (sub / name).write_bytes(src.with_name(name.replace("x", "run", 1)).read_bytes())
    assert len(lt.read_episodes(sub / "x.parquet")) == N_EPISODES
    assert len(lt.read_calls(str(sub / "x.parquet"))) == int(df["tool_calls"].sum())


def test_jsonl_ledger_directory(simulated: dict[str, Path], tmp_path: Path) -> None:
    # The Inspect task writes a directory of raw JSONL files, one per
    # sample: read_* grade it through the binary, calls and effects too.
    d = tmp_path / "ledger"
    d.mkdir()
    lines = simulated["jsonl"].read_text().splitlines()[:40]
    (d / "a.jsonl").write_text("\n".join(lines[:25]) + "\n")
    (d / "b.jsonl").write_text("\n".join(lines[25:]) + "\n")
    df = lt.read_episodes(d)
    assert len(df) == 40 and str(df["fault_mode"].dtype) == "category"
    assert sorted(df["episode_id"]) == sorted(json.loads(x)["episode_id"] for x in lines)
    p = lt.read_episodes(d / "a.jsonl", polars=True)
    assert p.height == 25 and p.schema["fault_mode"] == pl.Categorical


def test_raw_jsonl_calls(simulated: dict[str, Path], tmp_path: Path) -> None:
    raw = tmp_path / "raw.jsonl"
    lt.run(["simulate", "--shard", "1/512", "--out", str(raw)])
    eps = lt.read_episodes(raw)
    calls = lt.read_calls(raw)
    effects = lt.read_effects(raw)
    assert len(calls) == int(eps["tool_calls"].sum()) > 0
    assert set(effects["episode_id"].astype(str)) <= set(eps["episode_id"])


def test_read_time_reported(simulated: dict[str, Path]) -> None:
    # Not a timing assertion (timings belong to benchmarks): prints the figure.
    t = time.perf_counter()
    df = pd.read_parquet(simulated["parquet"])
    print(f"pandas.read_parquet of {len(df)} episodes: {time.perf_counter() - t:.3f} s")
    assert len(df) == N_EPISODES
