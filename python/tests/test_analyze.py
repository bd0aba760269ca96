from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import limbo_toolkit as lt
from limbo_toolkit import analyze

REPO = Path(__file__).resolve().parents[2]


def test_rates_match_counts(simulated: dict[str, Path]) -> None:
    eps = lt.read_episodes(simulated["parquet"])
    r = analyze.rates(simulated["parquet"], "duplicated", ["fault_mode"], where='experiment == "E2"', weight="none")
    sub = eps[eps["experiment"] == "E2"]
    counts = sub.groupby("fault_mode", observed=True)["duplicated"].agg(["size", "sum", "mean"])
    assert str(r["fault_mode"].dtype) == "category"
    got = r.set_index("fault_mode")
    assert set(got.index) == set(counts.index)
    for fm, row in counts.iterrows():
        assert got.loc[fm, "n"] == row["size"] and got.loc[fm, "events"] == row["sum"]
        # One scale: percent.
        assert got.loc[fm, "pct"] == pytest.approx(100 * row["mean"], abs=1e-9)
        assert got.loc[fm, "lo"] <= got.loc[fm, "pct"] <= got.loc[fm, "hi"] <= 100
    assert list(r.columns[:7]) == ["fault_mode", "n", "events", "pct", "lo", "hi", "n_eff"]


def test_tables_and_paired_and_model(simulated: dict[str, Path]) -> None:
    t3 = analyze.tables(simulated["parquet"], 3)[3]
    assert t3.attrs["title"] and {"row", "column", "kind", "value", "lo", "hi", "n"} <= set(t3.columns)
    assert t3["row"].nunique() == 8 and str(t3["row"].dtype) == "category"
    p = analyze.paired(simulated["parquet"], "duplicated", "condition", "vanilla", ["pair_key"],
                       where='experiment == "E3"')
    assert {"base", "other", "pairs", "b", "c", "p", "gain_pp"} <= set(p.columns) and (p["base"] == "vanilla").all()
    assert str(p["other"].dtype) == "category"
    m = analyze.model(simulated["parquet"], "duplicated ~ fault_mode", where='experiment == "E2"')
    assert isinstance(m, pd.DataFrame) and "(Intercept)" in set(m["term"])


def test_tost_is_a_frame_in_percent(simulated: dict[str, Path]) -> None:
    t = analyze.tost(simulated["parquet"], "eos", "condition", "vanilla", "guard", margin=0.05,
                     paired_by=["pair_key"], where='experiment == "E3"')
    assert isinstance(t, pd.DataFrame) and len(t) == 1
    row = t.iloc[0]
    doc = t.attrs["doc"]
    assert row["margin_pp"] == pytest.approx(5.0)
    assert row["diff_pp"] == pytest.approx(100 * doc["diff"])
    assert row["lo_pp"] <= row["diff_pp"] <= row["hi_pp"]


def test_means_shapley_hypotheses_validate_gate(simulated: dict[str, Path]) -> None:
    m = analyze.means(simulated["parquet"], "tool_calls", ["experiment"])
    eps = lt.read_episodes(simulated["parquet"], columns=["experiment", "tool_calls", "weight"])
    assert str(m["experiment"].dtype) == "category" and set(m["experiment"]) == set(eps["experiment"])
    s = analyze.shapley(simulated["parquet"], "duplicated ~ contract + fault_mode", where='experiment == "E5"')
    assert str(s["factor"].dtype) == "category" and s["share"].sum() == pytest.approx(100)
    h = analyze.hypotheses(simulated["parquet"])
    assert set(h["id"].astype(str)) >= {"H1", "H2", "H3", "H4", "H5", "H6"}
    v = analyze.validate(simulated["parquet"])
    assert v.loc[0, "rows"] == len(eps) and v.loc[0, "sum_duplicated"] > 0
    g = analyze.gate(simulated["parquet"], simulated["parquet"], 0.02)
    assert bool(g.loc[0, "passed"]) and g.loc[0, "verdict"].startswith("gate pass")
    with pytest.raises(lt.LimboError) as e:
        analyze.gate(simulated["parquet"], simulated["parquet"], 0)
    assert e.value.returncode == 2


def test_power_in_percent(simulated: dict[str, Path]) -> None:
    # Two replications of a pilot: the shape, not the power.
    pilot = simulated["parquet"]
    pw = analyze.power(pilot=pilot, sizes=[1], reps=2, jobs=2)
    assert set(pw.columns) >= {"id", "analysis", "size", "power", "lo", "hi"} and str(pw["id"].dtype) == "category"
    assert ((pw["power"] >= 0) & (pw["power"] <= 100)).all() and set(pw["power"]) <= {0.0, 50.0, 100.0}


def test_cli_warnings_are_python_warnings(simulated: dict[str, Path]) -> None:
    # Fault modes under which nothing is ever duplicated separate the logit.
    args = (simulated["parquet"], "duplicated ~ fault_mode")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        analyze.model(*args, where='experiment == "E2"')
    cats = {w.category for w in got}
    assert lt.SeparationWarning in cats, [(w.category, str(w.message)) for w in got]
    assert all(issubclass(c, lt.LimboWarning) for c in cats)
    # An escalated category fails the analysis.
    with warnings.catch_warnings():
        warnings.simplefilter("error", lt.SeparationWarning)
        with pytest.raises(lt.SeparationWarning, match="separation"):
            analyze.model(*args, where='experiment == "E2"')


def test_every_code_has_a_category() -> None:
    src = (REPO / "analysis" / "warning.go").read_text()
    names = dict(re.findall(r"\n\t(Warn\w+):\s+\"([a-z-]+)\",", src))
    assert names and set(names.values()) == set(lt.WARNING_CATEGORIES)
