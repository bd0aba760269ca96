"""Time an Inspect eval of the whole default E2 plan (217 episodes) with the
scripted mockllm blind-retry policy of python/tests/policies.py.

    LIMBO_ANALYZE=/path/to/limbo-analyze python scripts/python/eval_e2.py [LEDGER_DIR]
"""
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tests"))

import policies  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402

from limbo_toolkit.inspect import limbo  # noqa: E402

ledger = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="limbo-e2-")
t = time.perf_counter()
[log] = inspect_eval(limbo(ledger=ledger), model=policies.mock_model(policies.blind_retry),
                     log_dir=str(Path(ledger) / "logs"), display="none")
print(f"{len(log.samples)} samples, status {log.status}, {time.perf_counter() - t:.1f} s; ledger {ledger}")
