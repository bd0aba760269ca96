"""Shared fixtures: the limbo-analyze binary and a simulated export."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def binary(tmp_path_factory: pytest.TempPathFactory) -> str:
    """LIMBO_ANALYZE if set (scripts/python/check.sh builds it), else a
    fresh build of ./cmd/limbo-analyze."""
    exe = os.environ.get("LIMBO_ANALYZE")
    if exe:
        return exe
    exe = _build(tmp_path_factory)
    os.environ["LIMBO_ANALYZE"] = exe  # for module fixtures, before monkeypatch applies
    return exe


def _build(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which("go") is None:
        pytest.skip("neither LIMBO_ANALYZE nor go is available")
    out = tmp_path_factory.mktemp("bin") / "limbo-analyze"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/limbo-analyze"], cwd=REPO, check=True)
    return str(out)


@pytest.fixture(scope="session")
def simulated(binary: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The paper's design simulated (seed 1): the raw ledger, its Parquet
    export (episodes, calls, effects), a JSONL export of the graded rows and
    a dataset partitioned by experiment and instance."""
    d = tmp_path_factory.mktemp("sim")
    raw = d / "raw.jsonl"
    subprocess.run([binary, "simulate", "--out", str(raw)], check=True, capture_output=True)
    out = {"raw": raw, "parquet": d / "run.parquet", "jsonl": d / "graded.jsonl", "dataset": d / "ds"}
    for key, extra in (("parquet", []), ("jsonl", []), ("dataset", ["--partition-by", "experiment,instance"])):
        subprocess.run([binary, "export", "--in", str(raw), "--out", str(out[key]), *extra], check=True,
                       capture_output=True)
    raw.unlink()  # 67 MB
    return out


@pytest.fixture(autouse=True)
def _binary_env(binary: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIMBO_ANALYZE", binary)
