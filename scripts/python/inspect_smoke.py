"""A first Inspect eval of the limbo task with a scripted model, as a new
user runs it from an installed wheel (scripts/python/check.sh): N episodes
of the default plan under a model that re-sends a failed write once, every
sample scored and equal to its ledger line, then ``read_episodes`` and
``analyze.rates`` over the ledger the task wrote.

    python scripts/python/inspect_smoke.py WORKDIR [N]

The scripted model is python/tests/policies.py's (usage set on every
output, so Inspect downloads no tokenizer).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "tests"))


def main(work: Path, n: int) -> None:
    t0 = time.perf_counter()
    from inspect_ai import eval as inspect_eval

    import limbo_toolkit as lt
    import policies
    from limbo_toolkit import analyze
    from limbo_toolkit.inspect import OUTCOMES, limbo, outcome_value

    ledger = work / "ledger"
    [log] = inspect_eval(limbo(ledger=str(ledger), limit=n), model=policies.mock_model(policies.blind_retry),
                         log_dir=str(work / "logs"), display="none", max_samples=8)
    assert log.status == "success", log.error
    eps = lt.read_episodes(ledger)
    rows = {r["episode_id"]: r for r in eps.to_dict("records")}
    assert len(log.samples) == len(rows) == n, (len(log.samples), len(rows))
    for s in log.samples:
        row = rows[s.metadata["limbo_episode_id"]]
        for k in OUTCOMES:
            assert s.scores[k].value == outcome_value(row, k), (row["episode_id"], k)
        assert s.metadata["seed"] == row["seed"]
    rates = analyze.rates(ledger, "duplicated", ["fault_mode"])
    assert int(rates["n"].sum()) == n
    print(f"inspect eval of {n} episodes with a scripted model, scored from the ledger: "
          f"{time.perf_counter() - t0:.1f} s (inspect_ai {__import__('inspect_ai').__version__}, "
          f"limbo-analyze {lt.binary_version()['version']})")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 20)
