"""Every code block of the README, docs/*.md and python/README.md that a
user can run, run (CONTRIBUTING.md, "Examples that run"):

- A fenced block tagged ``sh``, ``python`` or ``sql`` runs, in page order,
  in one working directory per page where the repository's top-level
  entries are linked (paths are relative to the repository root) and
  ``limbo-analyze`` and ``./limbo-analyze`` are the checkout's binary:
  ``sh`` with bash -e, ``python`` with this interpreter, ``sql`` with
  DuckDB.
- A block followed by a fenced ``output`` block must print exactly that.
- ``<!-- setup: COMMAND -->`` runs COMMAND (sh) before the page's blocks.
- ``<!-- not run: WHY -->`` on the line before a fence skips the block;
  WHY is required.
- The README's Usage section is run by cmd/limbo-analyze/readme_usage_test.go
  and the ``$ limbo-analyze`` examples by docs_examples_test.go.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "python" / "README.md"]
LANGS = ("sh", "python", "sql")
NOT_RUN = re.compile(r"^<!-- not run: (.*\S) -->$")
SETUP = re.compile(r"^<!-- setup: (.+) -->$")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence
    lang: str
    code: str
    want: str | None  # the output block's text
    skip: str | None  # why it is not run


def blocks(page: Path) -> tuple[list[str], list[Block]]:
    """The page's setup commands and its code blocks."""
    lines = page.read_text().splitlines()
    setup = [m.group(1) for ln in lines if (m := SETUP.match(ln.strip()))]
    out: list[Block] = []
    section = ""
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("## "):
            section = ln[3:].strip()
        if not ln.startswith("```"):
            i += 1
            continue
        lang = ln[3:].strip()
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        code = "\n".join(lines[i + 1:j])
        k = j + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        want = None
        if k < len(lines) and lines[k].strip() == "```output":
            e = k + 1
            while e < len(lines) and not lines[e].startswith("```"):
                e += 1
            want = "\n".join(lines[k + 1:e])
            j = e
        if lang in LANGS:
            prev = lines[i - 1].strip() if i > 0 else ""
            m = NOT_RUN.match(prev)
            skip = m.group(1) if m else None
            if page.name == "README.md" and page.parent == REPO and section == "Usage" and lang == "sh":
                skip = "run by cmd/limbo-analyze/readme_usage_test.go"
            out.append(Block(page, i + 1, lang, code, want, skip))
        i = j + 1
    return setup, out


def _workdir(tmp: Path, binary: str) -> Path:
    d = tmp / "work"
    d.mkdir()
    for e in REPO.iterdir():
        if e.name.startswith(".") or e.name in ("out", "limbo-analyze"):
            continue
        (d / e.name).symlink_to(e)
    shutil.copy(binary, d / "limbo-analyze")
    bindir = tmp / "bin"
    bindir.mkdir()
    shutil.copy(binary, bindir / "limbo-analyze")
    return d


def _run(b: Block, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if b.lang == "sh":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", b.code]
    elif b.lang == "python":
        cmd = [sys.executable, "-c", b.code]
    else:
        prog = "import duckdb, sys\nfor s in duckdb.sql(sys.stdin.read()).fetchall(): print(' | '.join(map(str, s)))"
        return subprocess.run([sys.executable, "-c", prog], input=b.code, cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=600)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _norm(s: str) -> str:
    return "\n".join(ln.rstrip() for ln in s.strip("\n").splitlines())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_page_examples(page: Path, binary: str, tmp_path: Path) -> None:
    setup, bs = blocks(page)
    runnable = [b for b in bs if b.skip is None]
    for b in bs:
        assert b.skip is None or b.skip.strip(), f"{page}:{b.line}: 'not run' needs a reason"
    if not runnable:
        pytest.skip(f"{page.name}: no block to run here")
    cwd = _workdir(tmp_path, binary)
    # limbo-analyze is the checkout's binary, python this interpreter.
    path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {**os.environ, "PATH": path, "LIMBO_ANALYZE": binary, "MPLBACKEND": "Agg"}
    for cmd in setup:
        p = subprocess.run(["bash", "-e", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, f"{page}: setup {cmd!r}: {p.stderr[-2000:]}"
    failures = []
    for b in runnable:
        p = _run(b, cwd, env)
        where = f"{page.relative_to(REPO)}:{b.line} ({b.lang})"
        if p.returncode != 0:
            failures.append(f"{where}: exit {p.returncode}\n{p.stderr[-2000:]}")
        elif b.want is not None and _norm(p.stdout) != _norm(b.want):
            failures.append(f"{where}: prints\n{p.stdout}\nthe page says\n{b.want}")
    assert not failures, "\n\n".join(failures)
