"""Reading ledger exports into pandas or polars."""

from __future__ import annotations

import glob as _glob
import os
from pathlib import Path
from typing import Any

_TABLE_SUFFIX = {"episodes": "", "calls": ".calls", "effects": ".effects"}


def _files(path: str | os.PathLike[str], table: str) -> list[str]:
    """The Parquet files of ``table`` under path: a file, a directory (a
    ``--partition-by`` dataset, whose calls and effects live in OUT.calls
    and OUT.effects beside it) or a glob."""
    s = os.fspath(path)
    suffix = _TABLE_SUFFIX[table]
    if any(c in s for c in "*?["):
        files = sorted(_glob.glob(s, recursive=True))
        if table != "episodes":
            files = [_sibling(f, suffix) for f in files if not _is_side(f)]
        else:
            files = [f for f in files if not _is_side(f)]
        if not files:
            raise FileNotFoundError(f"{s}: the glob matches no Parquet file")
        return files
    p = Path(s)
    if p.is_dir():
        root = p if table == "episodes" else p.with_name(p.name + suffix)
        if not root.is_dir():
            raise FileNotFoundError(f"{root}: no {table} dataset beside {p}")
        return [str(root)]
    if table != "episodes":
        p = Path(_sibling(str(p), suffix))
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file")
    return [str(p)]


def _is_side(f: str) -> bool:
    return f.endswith(".calls.parquet") or f.endswith(".effects.parquet")


def _sibling(f: str, suffix: str) -> str:
    if f.endswith(".parquet"):
        return f[: -len(".parquet")] + suffix + ".parquet"
    return f + suffix


def _read(path: str | os.PathLike[str], table: str, polars: bool, columns: list[str] | None) -> Any:
    # A partitioned dataset's files keep every column, the partition
    # columns included (docs/ledger.md), so directories are read without
    # Hive partition inference: it would type an integer partition column
    # as a dictionary of int32 and clash with the INT64 in the files.
    files = _files(path, table)
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


def read_episodes(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None) -> Any:
    """The episode table of an export: a ``.parquet`` file, a ``--partition-by``
    directory, or a glob of files. Enumerations come back as categoricals
    (pandas ``category``, polars ``Categorical``); booleans, integers and
    floats as in docs/ledger.md. ``polars=True`` returns a polars DataFrame."""
    return _read(path, "episodes", polars, columns)


def read_calls(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None) -> Any:
    """The calls table beside an export (``X.calls.parquet`` for ``X.parquet``,
    ``OUT.calls/`` for a dataset ``OUT``); ``path`` names the episodes export."""
    return _read(path, "calls", polars, columns)


def read_effects(path: str | os.PathLike[str], *, polars: bool = False, columns: list[str] | None = None) -> Any:
    """The effects table beside an export (``X.effects.parquet``, ``OUT.effects/``)."""
    return _read(path, "effects", polars, columns)
