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
    scorer,
    stderr,
)
from inspect_ai.scorer import mean_score as mean_reducer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolDef, mcp_server_stdio

from .._binary import binary_version, find_binary, run

#: The task's version (``Task(version=...)``, in every log): raised when
#: what a sample is or how it is scored changes.
TASK_VERSION = 2

#: Design fields copied into Sample.metadata (seed signed, as the ledger
#: stores it).
DESIGN_FIELDS = ("episode_id", "template", "instance", "focal_write", "focal_index", "fault_mode", "contract",
                 "condition", "cue", "experiment", "delay_s", "seed", "model", "harness")

#: Fields that depend on the model label: without ``model_label`` the
#: default plan is labelled with the model under evaluation, known only when
#: the sample runs, so the solver sets them (the world that ran).
LABELLED_FIELDS = ("episode_id", "seed", "model")

#: The scored outcomes, one scorer each: the good ones first (pass^k is
#: their reliability: all k epochs exactly-once successful, successful, free
#: of duplicates), then the bad ones (their mean is the rate).
GOOD_OUTCOMES = ("eos", "task_success", "no_duplicate")
BAD_OUTCOMES = ("duplicated", "overclaim")
OUTCOMES = GOOD_OUTCOMES + BAD_OUTCOMES


def signed_seed(seed: int) -> int:
    """A world seed as the ledger stores it: the plan's unsigned 64-bit
    seed read as a signed one (two's complement)."""
    seed = int(seed)
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def outcome_value(row: dict[str, Any], outcome: str) -> int:
    """The 0/1 value of an outcome in a graded ledger row."""
    if outcome == "no_duplicate":
        return int(not row["duplicated"])
    return int(bool(row[outcome]))


def episode_id(design_id: str, epoch: int) -> str:
    """The ledger episode id of a sample's epoch: the planned id for the
    first epoch, ``ID/epoch-N`` for epoch N > 1 (the world, and so the
    pair_key, is the same)."""
    return design_id if epoch <= 1 else f"{design_id}/epoch-{epoch}"


def ledger_file(ledger: str | os.PathLike[str], eid: str) -> Path:
    """The JSONL file under the ledger directory that holds episode ``eid``."""
    safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", eid)[:120]
    return Path(ledger) / f"{safe}-{hashlib.sha256(eid.encode()).hexdigest()[:10]}.jsonl"


def _plan_args(plan: str | None, model: str, harness: str, seed: int) -> list[str]:
    args = ["serve", "--print-plan"]
    if plan is not None:
        return args + ["--plan", os.fspath(plan)]
    return args + ["--model", model, "--harness", harness, "--seed", str(seed)]


def load_plan(plan: str | None = None, *, model: str = "unknown", harness: str = "inspect", seed: int = 1,
              binary: str | None = None) -> list[dict[str, Any]]:
    """The plan's episodes (``serve --print-plan``): the plan file, or the
    default E2 plan labelled with ``model`` and ``harness``. Seeds are as
    the plan prints them (unsigned); ``signed_seed`` gives the ledger's."""
    episodes: list[dict[str, Any]] = json.loads(run(_plan_args(plan, model, harness, seed), binary=binary).stdout)[
        "episodes"]
    return episodes


def _instruction(ep: dict[str, Any], binary: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "plan.json"
        p.write_text(json.dumps({"episodes": [ep]}))
        return run(["serve", "--plan", str(p), "--print-task"], binary=binary).stdout.strip()


def _sample_id(ep: dict[str, Any], labelled: bool) -> str:
    # Without a model label the default plan's ids name the model under
    # evaluation, unknown here; the sample id is then the world (contract,
    # condition, cue, template/instance/focal_index/fault_mode), which the
    # served id extends.
    if labelled:
        return str(ep["episode_id"])
    return "/".join(str(ep.get(k)) for k in ("contract", "condition", "cue", "template", "instance", "focal_index",
                                             "fault_mode"))


def design_metadata(ep: dict[str, Any], labelled: bool = True) -> dict[str, Any]:
    """The sample metadata of a planned episode: its design fields, the
    seed signed as in the ledger; without a label, none of the fields that
    depend on it (the solver sets them from the world that runs)."""
    meta = {k: ep.get(k) for k in DESIGN_FIELDS if k in ep and (labelled or k not in LABELLED_FIELDS)}
    if "seed" in meta:
        meta["seed"] = signed_seed(meta["seed"])
    meta["focal_write"] = _focal_write(ep)
    return meta


def _samples(episodes: list[dict[str, Any]], binary: str, labelled: bool = True) -> list[Sample]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        prompts = list(pool.map(lambda e: _instruction(e, binary), episodes))
    out = []
    for i, (ep, prompt) in enumerate(zip(episodes, prompts)):
        meta = design_metadata(ep, labelled)
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


def _user_solver(spec: Solver | str | None) -> Solver | None:
    """A solver given as an object or, from the command line, as
    ``module:function`` (a function returning a Solver or an Agent)."""
    if spec is None or not isinstance(spec, str):
        return spec
    import importlib

    mod, sep, fn = spec.partition(":")
    if not sep or not mod or not fn:
        raise ValueError(f"solver={spec!r}: want module:function (a function returning a Solver or an Agent)")
    made = getattr(importlib.import_module(mod), fn)()
    from inspect_ai.agent import as_solver, is_agent

    return as_solver(made) if is_agent(made) else made  # type: ignore[no-any-return]


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
    solver: Solver | str | None = None,
) -> Task:
    """LIMBO episodes as an Inspect task.

    Args:
      plan: a ``serve --plan`` plan file; default: the E2 instance-0 plan
        (217 episodes), labelled with the model under evaluation (or
        ``model_label``), ``harness`` and world seed ``seed``.
      ledger: directory the served episodes go to, one JSONL file per
        sample and epoch; ``limbo-analyze tables --in LEDGER`` reads it.
      epochs: episodes per sample (each its own run of the sample's world
        and its own ledger line), as Inspect's ``--epochs``; either way the
        reducers are the mean and ``pass_hat_k`` (k = the epochs).
      binary: the ``limbo-analyze`` executable (else ``LIMBO_ANALYZE``, the
        wheel's, PATH).
      think_s, max_calls, raw, annotations: passed to ``serve``.
      limit: only the first ``limit`` planned episodes.
      solver: the agent under evaluation, run with the sandbox's tools in
        ``state.tools`` (default: Inspect's tool loop, ``generate(state,
        tool_calls="loop")``); from the command line ``-T
        solver=module:function``.
    """
    exe = find_binary(binary)
    label = model_label or "unknown"
    plan_json = run(_plan_args(plan, label, harness, seed), binary=exe).stdout
    episodes: list[dict[str, Any]] = json.loads(plan_json)["episodes"]
    if limit is not None:
        episodes = episodes[:limit]
    labelled = plan is not None or model_label is not None
    v = binary_version(exe)
    return Task(
        dataset=MemoryDataset(_samples(episodes, exe, labelled=labelled),
                              name="limbo-" + (Path(plan).stem if plan else "E2")),
        solver=limbo_agent(ledger=ledger, plan=plan, model_label=model_label, harness=harness, seed=seed, binary=exe,
                           think_s=think_s, max_calls=max_calls, raw=raw, annotations=annotations,
                           agent=_user_solver(solver)),
        scorer=limbo_scorers(ledger=ledger),
        epochs=Epochs(epochs, [mean_reducer(), pass_hat()]),
        message_limit=message_limit,
        version=TASK_VERSION,
        metadata={
            "limbo_ledger": os.path.abspath(ledger),
            "limbo_binary_version": v.get("version"),
            "limbo_schema_version": v.get("schema_version"),
            # The plan as served (serve --print-plan); without a model label
            # the default plan's label is "unknown" here and the model's
            # name in the episodes that run.
            "limbo_plan": os.path.abspath(plan) if plan else "default E2 instance-0",
            "limbo_plan_sha256": hashlib.sha256(plan_json.encode()).hexdigest(),
            "limbo_model_label": model_label,
        },
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


async def _close_episode(tools: list[Any]) -> None:
    """End the episode as a disconnect would, so that serve records it
    whatever stopped the agent: the finish report a silent end implies
    (status failed, no uncertainties; docs: serve grades an episode that
    ends without a report so). serve records a session without any tool
    call only on a finish, so a model that answered in text, or was cut by
    a limit before its first call, is an episode like any other. After
    the agent's own finish the episode is over and this is refused."""
    import anyio

    for t in tools:
        if ToolDef(t).name == "finish":
            with anyio.CancelScope(shield=True):  # a time limit cancels the sample: still record it
                try:
                    await t(status="failed", uncertainties=[])
                except Exception:  # the episode had ended (finish, a budget): nothing to do
                    pass
            return


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
    agent: Solver | None = None,
) -> Solver:
    """Start this sample's episode server and let the agent work through
    the task with its tools (default: Inspect's tool-call loop) until it
    stops; leaving the server ends (and records) the episode, also when a
    message, token or time limit cuts the agent off."""
    exe = find_binary(binary)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ep = _episode_for(state, plan, model_label, harness, seed, exe)
        # The world that runs (the plan labelled with the model under
        # evaluation) in the sample's metadata: join_samples keys on it.
        state.metadata.update(design_metadata(ep))
        eid = episode_id(ep["episode_id"], state.epoch)
        state.metadata["limbo_episode_id"] = eid
        ep["episode_id"] = eid
        out_dir = Path(ledger).absolute()
        out_dir.mkdir(parents=True, exist_ok=True)
        ep_file = ledger_file(out_dir, eid)
        _supersede(ep_file)
        # Before the agent runs: a limit raised inside it skips the rest.
        state.store.set("limbo_episode_id", eid)
        state.store.set("limbo_ledger_file", str(ep_file))
        with tempfile.TemporaryDirectory(prefix="limbo-plan-") as d:
            plan_file = Path(d) / "plan.json"
            plan_file.write_text(json.dumps({"episodes": [ep]}))
            server = mcp_server_stdio(name="limbo", command=exe,
                                      args=_serve_args(ep_file, plan_file, think_s, max_calls, raw, annotations),
                                      cwd=str(out_dir), env={})
            async with server:
                tools = list(await server.tools())
                state.tools = list(tools)
                try:
                    if agent is None:
                        state = await generate(state, tool_calls="loop")
                    else:
                        state = await agent(state, generate)
                finally:
                    await _close_episode(tools)
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


def _graded(state: TaskState) -> dict[str, Any]:
    eid = state.store.get("limbo_episode_id")
    path = state.store.get("limbo_ledger_file")
    row = read_graded(path, eid) if eid and path else None
    if row is None:
        # Every session is recorded (the solver closes it with finish), so
        # a missing line is the infrastructure's failure: an error, retried
        # with --retry-on-error.
        raise RuntimeError(f"episode {eid}: not in the ledger {path} (did limbo-analyze serve fail? see its stderr)")
    return row


def _outcome_scorer(outcome: str, meaning: str) -> Any:
    @scorer(metrics=[mean(), stderr(cluster="template")], name=outcome)
    def make(ledger: str = "limbo-ledger") -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            row = _graded(state)
            eid = row["episode_id"]
            return Score(value=outcome_value(row, outcome), answer=eid,
                         explanation=f"{eid}: {outcome} {outcome_value(row, outcome)} (recovery {row.get('recovery')}, "
                                     f"{row.get('tool_calls')} calls)",
                         metadata={"episode": row} if outcome == OUTCOMES[0] else None)

        return score

    make.__doc__ = f"1 when {meaning}, from the graded ledger line (mean, and its standard error clustered by template)."
    return make


eos = _outcome_scorer("eos", "the episode is an exactly-once success (the task done, no duplicate)")
task_success = _outcome_scorer("task_success", "the task is done")
no_duplicate = _outcome_scorer("no_duplicate", "no write took effect twice")
duplicated = _outcome_scorer("duplicated", "a write took effect more than once")
overclaim = _outcome_scorer("overclaim", "the agent reported success that did not happen")


def limbo_scorers(ledger: str = "limbo-ledger") -> list[Scorer]:
    """One scorer per outcome (OUTCOMES), each 0/1 from the graded ledger
    line, with the mean and its standard error clustered by template; the
    first (eos) carries the whole graded row in its metadata."""
    return [s(ledger=ledger) for s in (eos, task_success, no_duplicate, duplicated, overclaim)]


@score_reducer(name="pass_hat_k")
def pass_hat(k: int | None = None) -> ScoreReducer:
    """pass^k: the probability that k epochs drawn without replacement all
    have the outcome, C(c, k) / C(n, k) for c of n epochs (Yao et al. 2024,
    tau-bench); k defaults to the sample's epochs, when it is 1 if every
    epoch has the outcome. For the good outcomes it is reliability (eos:
    exactly-once success in all k tries; no_duplicate: no duplicate in k
    tries); for the bad ones it reads "in all k tries", not a rate."""

    def reduce(scores: list[Score]) -> Score:
        n = len(scores)
        first = scores[0].value
        if isinstance(first, dict):
            value: Any = {key: _pass_hat([float(s.value[key]) for s in scores if isinstance(s.value, dict)], k or n)
                          for key in first}
        else:
            value = _pass_hat([float(s.value) for s in scores], k or n)  # type: ignore[arg-type]
        return Score(value=value)

    return reduce


def _pass_hat(vals: Sequence[float], k: int) -> float:
    n, c = len(vals), sum(1 for v in vals if v >= 1)
    if n < k:
        return float("nan")
    return comb(c, k) / comb(n, k)
