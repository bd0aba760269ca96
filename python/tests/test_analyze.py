from __future__ import annotations

from pathlib import Path

import pandas as pd

import limbo_toolkit as lt
from limbo_toolkit import analyze


def test_rates_match_counts(simulated: dict[str, Path]) -> None:
    eps = lt.read_episodes(simulated["parquet"])
    r = analyze.rates(simulated["parquet"], "duplicated", ["fault_mode"], where='experiment == "E2"', weight="none")
    sub = eps[eps["experiment"] == "E2"]
    counts = sub.groupby("fault_mode", observed=True)["duplicated"].agg(["size", "sum"])
    got = r.set_index("fault_mode")
    assert set(got.index) == set(counts.index)
    for fm, row in counts.iterrows():
        assert got.loc[fm, "n"] == row["size"] and got.loc[fm, "events"] == row["sum"]
    assert {"p", "lo", "hi", "n_eff"} <= set(r.columns)


def test_tables_and_paired_and_model(simulated: dict[str, Path]) -> None:
    t3 = analyze.tables(simulated["parquet"], 3)[3]
    assert t3.attrs["title"] and {"row", "column", "value", "lo", "hi", "n"} <= set(t3.columns)
    assert t3["row"].nunique() == 8
    p = analyze.paired(simulated["parquet"], "duplicated", "condition", "vanilla", ["pair_key"],
                       where='experiment == "E3"')
    assert {"base", "other", "pairs", "b", "c", "p"} <= set(p.columns) and (p["base"] == "vanilla").all()
    m = analyze.model(simulated["parquet"], "duplicated ~ fault_mode", where='experiment == "E2"')
    assert isinstance(m, pd.DataFrame) and "(Intercept)" in set(m["term"])
