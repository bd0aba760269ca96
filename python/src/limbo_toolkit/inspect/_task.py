"""The LIMBO sandbox as an Inspect AI task.

Each planned episode is one Sample; each sample attempt (epoch, retry) runs
its own ``limbo-analyze serve`` over stdio through Inspect's MCP client, so
one server serves exactly one episode, into a ledger file of its own under
the ``ledger`` directory. The scorer reads the episode the server graded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from math import comb
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import (
    Score,
    ScoreReducer,
    Scorer,
    Target,
    mean,
    score_reducer,
)
from inspect_ai.scorer import (
    mean_score as mean_reducer,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import mcp_server_stdio

from .._binary import find_binary, run

#: Design fields copied into Sample.metadata.
DESIGN_FIELDS = ("episode_id", "template", "instance", "focal_write", "focal_index", "fault_mode", "contract",
                 "condition", "cue", "experiment", "delay_s", "seed")

#: The graded outcomes a score carries.
OUTCOMES = ("duplicated", "task_success", "eos", "overclaim")


def episode_id(design_id: str, epoch: int) -> str:
    """The ledger episode id of a sample's epoch: the planned id for the
    first epoch, ``ID/epoch-N`` for epoch N > 1 (the world, and so the
    pair_key, is the same)."""
    return design_id if epoch <= 1 else f"{design_id}/epoch-{epoch}"


def ledger_file(ledger: str | os.PathLike[str], eid: str) -> Path:
    """The JSONL file under the ledger directory that holds episode ``eid``."""
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", eid)[:120]
    return Path(ledger) / f"{safe}-{hashlib.sha256(eid.encode()).hexdigest()[:10]}.jsonl"


def load_plan(plan: str | None = None, *, model: str = "unknown", harness: str = "inspect", seed: int = 1,
              binary: str | None = None) -> list[dict[str, Any]]:
    """The plan's episodes (``serve --print-plan``): the plan file, or the
    default E2 plan labelled with ``model`` and ``harness``."""
    args = ["serve", "--print-plan"]
    if plan is not None:
        args += ["--plan", os.fspath(plan)]
    else:
        args += ["--model", model, "--harness", harness, "--seed", str(seed)]
    episodes: list[dict[str, Any]] = json.loads(run(args, binary=binary).stdout)["episodes"]
    return episodes


def _instruction(ep: dict[str, Any], binary: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "plan.json"
        p.write_text(json.dumps({"episodes": [ep]}))
        return run(["serve", "--plan", str(p), "--print-task"], binary=binary).stdout.strip()


def _sample_id(ep: dict[str, Any], labelled: bool) -> str:
    # Without a model label the default plan's ids name the model as
    # "unknown"; the sample id is then the world (contract, condition, cue,
    # template/instance/focal_index/fault_mode), which the served id extends.
    if labelled:
        return str(ep["episode_id"])
    return "/".join(str(ep.get(k)) for k in ("contract", "condition", "cue", "template", "instance", "focal_index",
                                             "fault_mode"))


def _samples(episodes: list[dict[str, Any]], binary: str, labelled: bool = True) -> list[Sample]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        prompts = list(pool.map(lambda e: _instruction(e, binary), episodes))
    out = []
    for i, (ep, prompt) in enumerate(zip(episodes, prompts)):
        meta = {k: ep.get(k) for k in DESIGN_FIELDS if k in ep}
        meta["focal_write"] = _focal_write(ep)
        meta["plan_index"] = i
        out.append(Sample(id=_sample_id(ep, labelled), input=prompt, metadata=meta))
    return out


_TASKS: dict[str, Any] | None = None


def _focal_write(ep: dict[str, Any]) -> str | None:
    # The focal write's tool name is the template's step at focal_index
    # (sandbox/data/tasks.json, as the ledger's focal_write column).
    global _TASKS
    if _TASKS is None:
        p = Path(__file__).with_name("tasks.json")
        _TASKS = {t["id"]: t for t in json.loads(p.read_text())["templates"]} if p.exists() else {}
    t = _TASKS.get(ep.get("template", ""))
    if not t:
        return None
    steps = t.get("steps", [])
    i = int(ep.get("focal_index", 0))
    return steps[i]["tool"] if 0 <= i < len(steps) else None


@task
def limbo(
    plan: str | None = None,
    ledger: str = "limbo-ledger",
    model_label: str | None = None,
    harness: str = "inspect",
    seed: int = 1,
    epochs: int = 1,
    binary: str | None = None,
    think_s: float | None = None,
    max_calls: int | None = None,
    raw: bool = False,
    annotations: bool = False,
    message_limit: int = 120,
    limit: int | None = None,
) -> Task:
    """LIMBO episodes as an Inspect task.

    Args:
      plan: a ``serve --plan`` plan file; default: the E2 instance-0 plan
        (217 episodes), labelled with the model under evaluation (or
        ``model_label``), ``harness`` and world seed ``seed``.
      ledger: directory the served episodes go to, one JSONL file per
        sample and epoch; ``limbo-analyze tables --in LEDGER`` reads it.
      epochs: episodes per sample (each its own world run and ledger line);
        scores are reduced by mean and pass^k (k = epochs).
      binary: the ``limbo-analyze`` executable (else ``LIMBO_ANALYZE``, PATH).
      think_s, max_calls, raw, annotations: passed to ``serve``.
      limit: only the first ``limit`` planned episodes.
    """
    exe = find_binary(binary)
    episodes = load_plan(plan, model=model_label or "unknown", harness=harness, seed=seed, binary=exe)
    if limit is not None:
        episodes = episodes[:limit]
    reducers: list[ScoreReducer] = [mean_reducer()]
    if epochs > 1:
        reducers.append(pass_hat(epochs))
    return Task(
        dataset=MemoryDataset(_samples(episodes, exe, labelled=plan is not None or model_label is not None), name="limbo-" + (Path(plan).stem if plan else "E2")),
        solver=limbo_agent(ledger=ledger, plan=plan, model_label=model_label, harness=harness, seed=seed, binary=exe,
                           think_s=think_s, max_calls=max_calls, raw=raw, annotations=annotations),
        scorer=limbo_scorer(ledger=ledger),
        epochs=Epochs(epochs, reducers),
        message_limit=message_limit,
        metadata={"limbo_ledger": os.path.abspath(ledger)},
    )


_PLANS: dict[tuple[str, str, int], list[dict[str, Any]]] = {}


def _episode_for(state: TaskState, plan: str | None, model_label: str | None, harness: str, seed: int,
                 binary: str) -> dict[str, Any]:
    """The planned episode of a sample, for the model under evaluation: the
    default plan's model label (part of episode ids, pair keys and world
    seeds) is the model's name unless model_label fixes it."""
    idx = int(state.metadata["plan_index"])
    label = model_label or (str(state.model) if plan is None else "")
    key = (plan or "", label, seed)
    if key not in _PLANS:
        _PLANS[key] = load_plan(plan, model=label or "unknown", harness=harness, seed=seed, binary=binary)
    return dict(_PLANS[key][idx])


def _serve_args(ep_file: Path, plan_file: Path, think_s: float | None, max_calls: int | None, raw: bool,
                annotations: bool) -> list[str]:
    args = ["serve", "--plan", str(plan_file), "--ledger", str(ep_file)]
    if think_s is not None:
        args += ["--think-s", str(think_s)]
    if max_calls is not None:
        args += ["--max-calls", str(max_calls)]
    if raw:
        args.append("--raw")
    if annotations:
        args.append("--annotations")
    return args


def _supersede(path: Path) -> None:
    """Move an earlier attempt's ledger file aside (a retried sample gets
    an episode of its own; only the last attempt stays in the ledger)."""
    if not path.exists():
        return
    n = 1
    while path.with_name(f"{path.name}.superseded-{n}").exists():
        n += 1
    path.rename(path.with_name(f"{path.name}.superseded-{n}"))
    created = path.with_suffix(".created.json")
    if created.exists():
        created.unlink()


@solver
def limbo_agent(
    ledger: str = "limbo-ledger",
    plan: str | None = None,
    model_label: str | None = None,
    harness: str = "inspect",
    seed: int = 1,
    binary: str | None = None,
    think_s: float | None = None,
    max_calls: int | None = None,
    raw: bool = False,
    annotations: bool = False,
) -> Solver:
    """Start this sample's episode server and let the model work through
    the task with its tools (Inspect's tool-call loop) until it stops
    calling tools; leaving the server ends (and records) the episode."""
    exe = find_binary(binary)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ep = _episode_for(state, plan, model_label, harness, seed, exe)
        # The served ids (the plan's, labelled with the model under
        # evaluation), in the sample's log metadata: join_samples keys on them.
        state.metadata["episode_id"] = ep["episode_id"]
        state.metadata["model"] = ep.get("model")
        eid = episode_id(ep["episode_id"], state.epoch)
        state.metadata["limbo_episode_id"] = eid
        ep["episode_id"] = eid
        out_dir = Path(ledger).absolute()
        out_dir.mkdir(parents=True, exist_ok=True)
        ep_file = ledger_file(out_dir, eid)
        _supersede(ep_file)
        with tempfile.TemporaryDirectory(prefix="limbo-plan-") as d:
            plan_file = Path(d) / "plan.json"
            plan_file.write_text(json.dumps({"episodes": [ep]}))
            server = mcp_server_stdio(name="limbo", command=exe,
                                      args=_serve_args(ep_file, plan_file, think_s, max_calls, raw, annotations),
                                      cwd=str(out_dir), env={})
            async with server:
                state.tools = list(await server.tools())
                state = await generate(state, tool_calls="loop")
        state.store.set("limbo_episode_id", eid)
        state.store.set("limbo_ledger_file", str(ep_file))
        return state

    return solve


def read_graded(path: str | os.PathLike[str], eid: str) -> dict[str, Any] | None:
    """The graded ledger line of episode ``eid`` in a served JSONL file."""
    p = Path(path)
    if not p.exists():
        return None
    for line in p.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("episode_id") == eid:
            return {k: v for k, v in row.items() if k not in ("calls", "effects", "final_report")}
    return None


@scorer(metrics={k: [mean()] for k in OUTCOMES})
def limbo_scorer(ledger: str = "limbo-ledger") -> Scorer:
    """The episode's graded outcomes, read from the ledger the server wrote:
    duplicated, task_success, eos and overclaim as 0/1, the whole graded row
    in the score's metadata. An episode the server did not record (the model
    never called a tool) scores nothing (an error in the log)."""

    async def score(state: TaskState, target: Target) -> Score:
        eid = state.store.get("limbo_episode_id")
        path = state.store.get("limbo_ledger_file")
        row = read_graded(path, eid) if eid and path else None
        if row is None:
            raise RuntimeError(f"episode {eid}: not in the ledger {path} (the session made no tool call?)")
        return Score(value={k: int(bool(row[k])) for k in OUTCOMES}, answer=eid,
                     explanation=f"{eid}: recovery {row.get('recovery')}, {row.get('tool_calls')} calls",
                     metadata={"episode": row})

    return score


@score_reducer(name="pass_hat_k")
def pass_hat(k: int) -> ScoreReducer:
    """pass^k: the probability that k epochs drawn without replacement all
    have the outcome (C(c, k) / C(n, k) for c of n epochs; Yao et al. 2024,
    tau-bench), per outcome."""

    def reduce(scores: list[Score]) -> Score:
        first = scores[0].value
        if isinstance(first, dict):
            value: Any = {}
            for key in first:
                vals = [float(s.value[key]) for s in scores if isinstance(s.value, dict)]
                value[key] = _pass_hat(vals, k)
        else:
            value = _pass_hat([float(s.value) for s in scores], k)  # type: ignore[arg-type]
        return Score(value=value)

    return reduce


def _pass_hat(vals: Sequence[float], k: int) -> float:
    n, c = len(vals), sum(1 for v in vals if v >= 1)
    if n < k:
        return float("nan")
    return comb(c, k) / comb(n, k)
