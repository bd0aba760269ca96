"""Inspect AI integration: the ``limbo`` task and its parts, and the join of
Inspect's samples with the episode ledger."""

from ._join import join_samples, samples_episodes
from ._task import (
    OUTCOMES,
    episode_id,
    ledger_file,
    limbo,
    limbo_agent,
    limbo_scorer,
    load_plan,
    pass_hat,
    read_graded,
)

__all__ = ["OUTCOMES", "episode_id", "join_samples", "samples_episodes", "ledger_file", "limbo", "limbo_agent", "limbo_scorer",
           "load_plan", "pass_hat", "read_graded"]
