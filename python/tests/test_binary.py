from __future__ import annotations

import os
from pathlib import Path

import pytest

import limbo_toolkit as lt
from limbo_toolkit import _binary

REPO = Path(__file__).resolve().parents[2]


def test_find_binary_order(binary: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert lt.find_binary() == os.path.realpath(binary)  # LIMBO_ANALYZE
    assert lt.find_binary(binary) == os.path.realpath(binary)  # explicit path wins
    monkeypatch.delenv("LIMBO_ANALYZE")
    monkeypatch.setenv("PATH", str(Path(binary).parent))
    bundled = _binary.bundled()
    if bundled is not None:  # installed from a platform wheel: its binary before PATH
        assert lt.find_binary() == bundled
    elif os.environ.get("CI") == "true":
        pytest.fail("CI installs the platform wheel: its bundled binary should be found")
    monkeypatch.setattr(_binary, "bundled", lambda: None)
    assert lt.find_binary() == os.path.realpath(binary)  # PATH


def test_missing_binary_says_how_to_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LIMBO_ANALYZE")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_binary, "bundled", lambda: None)  # a pure wheel, or a checkout
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


def test_run_survives_labels_that_are_not_utf8(tmp_path: Path) -> None:
    # Issue 37, item 9: an extra CSV column validate accepts, holding bytes
    # that are not UTF-8, printed by rates: run() returns them as escapes.
    sample = REPO / "testdata" / "ledger" / "sample.csv"
    lines = sample.read_bytes().splitlines()
    out = [lines[0] + b",team"] + [ln + (b",caf\xe9" if i % 2 else b",tea") for i, ln in enumerate(lines[1:])]
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"\n".join(out) + b"\n")
    proc = lt.run(["rates", "--in", str(bad), "--outcome", "duplicated", "--by", "team"])
    assert "caf\\xe9" in proc.stdout and "tea" in proc.stdout


def _fake_binary(tmp_path: Path, schema: str) -> Path:
    exe = tmp_path / "limbo-analyze"
    exe.write_text("#!/bin/sh\n"
                   f"echo '{{\"version\": \"9.9.9\", \"schema_version\": \"{schema}\", \"go\": \"go1\"}}'\n")
    exe.chmod(0o755)
    return exe


def test_binary_of_another_schema_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIMBO_ANALYZE", str(_fake_binary(tmp_path, "2")))
    with pytest.raises(lt.IncompatibleBinary, match=r"limbo-analyze 9\.9\.9 speaks ledger schema 2; .* reads ledger "
                                                   r"schema 1"):
        lt.run(["version"])


def test_versions_agree(binary: str) -> None:
    import importlib.metadata

    v = lt.binary_version()
    assert v["schema_version"] == lt.SCHEMA_VERSION
    assert lt.__version__ == importlib.metadata.version("limbo-toolkit")
    # A release binary carries the package's version; a development build
    # the same with -dev.
    assert v["version"] in (lt.__version__, lt.__version__ + "-dev"), v
