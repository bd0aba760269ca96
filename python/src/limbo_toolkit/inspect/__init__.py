"""Inspect AI integration: the ``limbo`` task and its parts, and the join of
Inspect's samples with the episode ledger."""

from ._join import join_samples, samples_episodes
from ._task import (
    BAD_OUTCOMES,
    GOOD_OUTCOMES,
    OUTCOMES,
    TASK_VERSION,
    design_metadata,
    duplicated,
    eos,
    episode_id,
    ledger_file,
    limbo,
    limbo_agent,
    limbo_scorers,
    load_plan,
    no_duplicate,
    outcome_value,
    overclaim,
    pass_hat,
    read_graded,
    signed_seed,
    task_success,
)

__all__ = ["BAD_OUTCOMES", "GOOD_OUTCOMES", "OUTCOMES", "TASK_VERSION", "design_metadata", "duplicated", "eos",
           "episode_id", "join_samples", "ledger_file", "limbo", "limbo_agent", "limbo_scorers", "load_plan",
           "no_duplicate", "outcome_value", "overclaim", "pass_hat", "read_graded", "samples_episodes",
           "signed_seed", "task_success"]
