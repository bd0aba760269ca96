"""Reading ledgers into pandas or polars."""

from __future__ import annotations

import glob as _glob
import os
import tempfile
from pathlib import Path
from typing import Any

_TABLE_SUFFIX = {"episodes": "", "calls": ".calls", "effects": ".effects"}
_TEXT_LEDGER = (".jsonl", ".ndjson", ".csv")


def _is_side(f: str) -> bool:
    return f.endswith(".calls.parquet") or f.endswith(".effects.parquet")


def _sibling(f: str, suffix: str) -> str:
    if f.endswith(".parquet"):
        return f[: -len(".parquet")] + suffix + ".parquet"
    return f + suffix


def _holds_parquet(d: Path) -> bool:
    return any(not n.startswith((".", "_")) for _, _, names in os.walk(d) for n in names if n.endswith(".parquet"))


def _sources(path: str | os.PathLike[str], glob: bool) -> list[str]:
    """The ledgers path names: itself, taken literally (a name holding
    ``[`` or ``*`` is a name), or with ``glob=True`` the files the pattern
    matches (``**`` crosses directories)."""
    s = os.fspath(path)
    if not glob:
        if not os.path.exists(s):
            hint = " (pass glob=True to read the files a pattern matches)" if any(c in s for c in "*?[") else ""
            raise FileNotFoundError(f"{s}: no such file or directory{hint}")
        return [s]
    found = [f for f in sorted(_glob.glob(s, recursive=True)) if not _is_side(f)]
    if not found:
        raise FileNotFoundError(f"{s}: the pattern matches no file")
    return found


def _graded(src: str, tmp: str, n: int) -> str:
    """A JSONL or CSV ledger, or a directory of them (the ledger the Inspect
    task writes), exported to Parquet by the binary, which grades raw lines
    and validates every row as every command does; the path of the export."""
    from ._binary import run

    out = os.path.join(tmp, f"ledger-{n}.parquet")
    run(["export", "--in", src, "--out", out])
    return out


def _parquet(src: str, table: str) -> str:
    """The Parquet file or dataset of ``table`` for the episodes export src."""
    suffix = _TABLE_SUFFIX[table]
    if table == "episodes":
        return src
    p = Path(src)
    side = p.with_name(p.name + suffix) if p.is_dir() else Path(_sibling(src, suffix))
    if not side.exists():
        raise FileNotFoundError(f"{side}: no {table} table beside {src}")
    return str(side)


def _read(path: str | os.PathLike[str], table: str, polars: bool, columns: list[str] | None, glob: bool) -> Any:
    srcs = _sources(path, glob)
    with tempfile.TemporaryDirectory(prefix="limbo-read-") as tmp:
        files = []
        for i, s in enumerate(srcs):
            text = os.path.isfile(s) and s.lower().endswith(_TEXT_LEDGER)
            if text or (os.path.isdir(s) and not _holds_parquet(Path(s))):
                s = _graded(s, tmp, i)
            files.append(_parquet(s, table))
        return _load(files, polars, columns)


def _load(files: list[str], polars: bool, columns: list[str] | None) -> Any:
    # A partitioned dataset's files keep every column, the partition
    # columns included (docs/ledger.md), so directories are read without
    # Hive partition inference: it would type an integer partition column
    # as a dictionary of int32 and clash with the INT64 in the files.
    if polars:
        import polars as pl

        frames = [
            pl.read_parquet(os.path.join(f, "**", "*.parquet") if os.path.isdir(f) else f,
                            columns=columns, hive_partitioning=False)
            for f in files
        ]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.read_table(f, columns=columns, partitioning=None) for f in files]
    t = tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")
    # Dictionary columns (the schema's enumerations and labels) become
    # pandas categoricals, as plain pandas.read_parquet gives.
    return t.to_pandas()


def read_episodes(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None,
                  glob: bool = False) -> Any:
    """The episode table of a ledger: a ``.parquet`` export, a
    ``--partition-by`` dataset, a JSONL or CSV ledger, or a directory of
    them such as the one the Inspect task writes (raw lines are graded by
    ``limbo-analyze export``). The path is taken literally; ``glob=True``
    reads every file a pattern matches (``**`` crosses directories).
    Enumerations come back as categoricals (pandas ``category``, polars
    ``Categorical``); booleans, integers and floats as in docs/ledger.md.
    ``polars=True`` returns a polars DataFrame."""
    return _read(path, "episodes", polars, columns, glob)


def read_calls(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None,
               glob: bool = False) -> Any:
    """The calls table of a ledger (``X.calls.parquet`` beside an export
    ``X.parquet``, ``OUT.calls/`` beside a dataset ``OUT``, or the calls
    of a raw JSONL ledger); ``path`` names the ledger as for
    :func:`read_episodes`."""
    return _read(path, "calls", polars, columns, glob)


def read_effects(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None,
                 glob: bool = False) -> Any:
    """The effects table of a ledger (``X.effects.parquet``, ``OUT.effects/``,
    or the effects of a raw JSONL ledger), as :func:`read_calls`."""
    return _read(path, "effects", polars, columns, glob)
