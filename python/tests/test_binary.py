from __future__ import annotations

import os
from pathlib import Path

import pytest

import limbo_toolkit as lt


def test_find_binary_order(binary: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert lt.find_binary() == os.path.realpath(binary)  # LIMBO_ANALYZE
    assert lt.find_binary(binary) == os.path.realpath(binary)  # explicit path wins
    monkeypatch.delenv("LIMBO_ANALYZE")
    monkeypatch.setenv("PATH", str(Path(binary).parent))
    assert lt.find_binary() == os.path.realpath(binary)  # PATH


def test_missing_binary_says_how_to_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LIMBO_ANALYZE")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(lt.BinaryNotFound, match=r"go install \./cmd/limbo-analyze"):
        lt.find_binary()
    monkeypatch.setenv("LIMBO_ANALYZE", str(tmp_path / "nope"))
    with pytest.raises(lt.BinaryNotFound, match="LIMBO_ANALYZE .*nope"):
        lt.find_binary()


def test_run_raises_the_cli_message(tmp_path: Path) -> None:
    assert "schema" in lt.run(["version"]).stdout.lower() or lt.run(["version"]).stdout
    with pytest.raises(lt.LimboError) as e:
        lt.run(["rates", "--in", str(tmp_path / "missing.csv"), "--outcome", "duplicated"])
    assert e.value.returncode == 1
    assert "missing.csv" in e.value.message and "\n" not in e.value.message
    with pytest.raises(lt.LimboError) as e:
        lt.run(["rates", "--bogus"])
    assert e.value.returncode == 2
    assert "bogus" in e.value.message
