"""limbo-analyze export --to hf-dataset, opened with Hugging Face datasets
and pandas (export --to inspect-log is tested with the Inspect task)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

import limbo_toolkit as lt


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def test_hf_dataset_folder(tmp_path: Path) -> None:
    import datasets

    raw = tmp_path / "raw.jsonl"
    lt.run(["simulate", "--shard", "1/256", "--out", str(raw)])
    out = tmp_path / "hf"
    lt.run(["export", "--in", str(raw), "--out", str(out), "--to", "hf-dataset"])
    want = lt.read_episodes(raw)
    ds = datasets.load_dataset(str(out))["train"]
    assert ds.num_rows == len(want)
    got = ds.to_pandas().set_index("episode_id").sort_index()
    w = want.set_index("episode_id").sort_index()
    for c in ("fault_mode", "duplicated", "seed", "tool_calls", "agent_time_s"):
        assert list(got[c].astype(str)) == list(w[c].astype(str)), c
    calls = datasets.load_dataset(str(out), "calls")["train"]
    assert calls.num_rows == int(want["tool_calls"].sum())
    # The Parquet keeps the categoricals for pandas (and the card lists them).
    eps = pd.read_parquet(out / "data" / "episodes.parquet")
    assert str(eps["fault_mode"].dtype) == "category" and str(eps["seed"].dtype) == "int64"
    card = (out / "README.md").read_text()
    for c in want.columns:
        assert f"| `{c}` |" in card, c
    assert os.path.getsize(out / "data" / "episodes.parquet") > 0
