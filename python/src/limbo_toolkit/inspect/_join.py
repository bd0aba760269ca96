"""Joining Inspect's samples_df with the episode ledger."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd


def join_samples(samples: pd.DataFrame, episodes: pd.DataFrame, how: str = "left") -> pd.DataFrame:
    """Join Inspect's ``inspect_ai.analysis.samples_df(...)`` with our
    episodes (``read_episodes`` or a DataFrame of a ledger) by episode id.

    A sample's episode id is its ``metadata_limbo_episode_id`` (what the
    solver served); failing that, its ``metadata_episode_id`` (the planned
    id) for epoch 1 and ``ID/epoch-N`` for epoch N (see ``episode_id``). The
    ledger's columns keep their names; clashing sample columns get the
    suffix ``_sample``.
    """
    from ._task import episode_id

    s = samples.copy()
    if "metadata_limbo_episode_id" in samples.columns:  # the served id, recorded by the solver
        s["episode_id"] = samples["metadata_limbo_episode_id"].astype(str)
        eps = episodes.copy()
        eps["episode_id"] = eps["episode_id"].astype(str)
        return s.merge(eps, on="episode_id", how=how, suffixes=("_sample", ""))
    if "metadata_episode_id" in samples.columns:
        base = samples["metadata_episode_id"].astype(str)
    elif "id" in samples.columns:
        base = samples["id"].astype(str)
    else:
        raise KeyError("samples has neither metadata_episode_id nor id (pass inspect_ai.analysis.samples_df(...))")
    epochs = samples["epoch"] if "epoch" in samples.columns else pd.Series(1, index=samples.index)
    s["episode_id"] = [episode_id(b, int(e)) for b, e in zip(base, epochs)]
    eps = episodes.copy()
    eps["episode_id"] = eps["episode_id"].astype(str)
    return s.merge(eps, on="episode_id", how=how, suffixes=("_sample", ""))


def samples_episodes(logs: Any, ledger: str | os.PathLike[str], how: str = "left") -> pd.DataFrame:
    """``samples_df(logs)`` joined with the episodes of the ledger directory
    (graded through ``limbo-analyze export``)."""
    import tempfile

    from inspect_ai.analysis import samples_df

    from .._binary import run
    from .._io import read_episodes

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "episodes.parquet")
        run(["export", "--in", os.fspath(ledger), "--out", out])
        eps = read_episodes(out)
    return join_samples(samples_df(logs), eps, how=how)
