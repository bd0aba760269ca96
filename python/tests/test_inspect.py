"""The Inspect task under Inspect's scripted mockllm provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.analysis import samples_df
from inspect_ai.log import read_eval_log

import limbo_toolkit as lt
from limbo_toolkit.inspect import OUTCOMES, TASK_VERSION, join_samples, limbo, load_plan, outcome_value, signed_seed

sys.path.insert(0, str(Path(__file__).parent))
import policies  # noqa: E402

MODES = ("timeout_pre", "timeout_post", "http500_post")


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory: pytest.TempPathFactory, binary: str) -> Path:
    """The default E2 plan's first focal write of every template under the
    three fault modes (36 episodes), labelled for mockllm."""
    eps = [e for e in load_plan(model="mockllm/model", harness="inspect", binary=binary)
           if e["focal_index"] == 0 and e["fault_mode"] in MODES]
    assert len(eps) == 12 * len(MODES)
    p = tmp_path_factory.mktemp("plan") / "plan.json"
    p.write_text(json.dumps({"episodes": eps}))
    return p


def _run(plan: Path, ledger: Path, logs: Path, policy: Any, eval_kw: dict[str, Any] | None = None,
         **kw: Any) -> Any:
    [log] = inspect_eval(limbo(plan=str(plan), ledger=str(ledger), **kw), model=policies.mock_model(policy),
                         log_dir=str(logs), display="none", **{"max_samples": 8, **(eval_kw or {})})
    assert log.status == "success", log.error
    return log


def _assert_scored_as_ledger(log: Any, ledger: Path, tmp: Path) -> dict[str, dict[str, Any]]:
    """Every sample has every outcome's score, equal to its graded ledger
    line; the sample's metadata is the world that ran."""
    rows = {r["episode_id"]: r for r in _ledger(ledger, tmp)}
    assert len(log.samples) == len(rows)
    for smp in log.samples:
        assert smp.error is None, smp.error
        eid = smp.metadata["limbo_episode_id"]
        row = rows[eid]
        assert set(smp.scores) == set(OUTCOMES), smp.scores.keys()
        for k in OUTCOMES:
            assert smp.scores[k].value == outcome_value(row, k), (eid, k)
        for k in ("template", "instance", "focal_index", "fault_mode", "contract", "condition", "seed", "model"):
            assert smp.metadata[k] == row[k], (eid, k)
    return rows


def _ledger(ledger: Path, tmp: Path) -> list[dict[str, Any]]:
    """The ledger graded by the engine (limbo-analyze export)."""
    out = tmp / "graded.jsonl"
    lt.run(["export", "--in", str(ledger), "--out", str(out)])
    return [json.loads(x) for x in out.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def blind(plan_file: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    d = tmp_path_factory.mktemp("blind")
    # raw: the served lines keep their calls (export --to inspect-log's transcript).
    return _run(plan_file, d / "ledger", d / "logs", policies.blind_retry, raw=True), d


def test_blind_resend_duplicates_exactly_where_the_write_committed(blind: tuple[Any, Path]) -> None:
    log, d = blind
    rows = _ledger(d / "ledger", d)
    assert len(rows) == 36
    for r in rows:
        committed = r["fault_mode"] in ("timeout_post", "http500_post")
        # An idempotent write (a status change, an upsert) cannot take
        # effect twice; every other class duplicates under a blind re-send.
        want = committed and r["write_class"] != "idempotent"
        assert r["duplicated"] == want, (r["episode_id"], r["write_class"], r["recovery"])
        if r["fault_mode"] != "timeout_pre" or r["write_class"] != "idempotent":
            assert r["recovery"] == "blind_retry" or r["fault_mode"] == "timeout_pre", r["episode_id"]
    assert sum(r["duplicated"] for r in rows) > 0


def test_scores_equal_the_graded_ledger(blind: tuple[Any, Path]) -> None:
    log, d = blind
    rows = {r["episode_id"]: r for r in _ledger(d / "ledger", d)}
    assert len(log.samples) == len(rows)
    _assert_scored_as_ledger(log, d / "ledger", d)
    for s in log.samples:
        score = s.scores["eos"]
        row = rows[score.answer]
        assert score.metadata["episode"]["episode_id"] == row["episode_id"]
        assert s.metadata["episode_id"] == row["episode_id"]
        assert s.metadata["focal_write"] == row["focal_write"]
    # The engine reads what Inspect produced.
    t = lt.run(["tables", "--in", str(d / "ledger"), "--table", "5"], check=False)
    assert t.returncode == 0 or "no E" in t.stderr


def test_samples_join_episodes(blind: tuple[Any, Path]) -> None:
    log, d = blind
    samples = samples_df(str(d / "logs"), quiet=True)
    eps = lt.read_episodes(_export(d))
    j = join_samples(samples, eps)
    assert len(j) == len(samples) == 36
    assert j["duplicated"].notna().all() and j["pair_key"].notna().all()
    for score, dup in zip(j["score_duplicated"], j["duplicated"]):
        assert int(score) == int(dup)
    # The rule on the planned id and the epoch gives the same join.
    k = join_samples(samples.drop(columns=["metadata_limbo_episode_id"]), eps)
    assert list(k["episode_id"]) == list(j["episode_id"])


def _export(d: Path) -> Path:
    out = d / "episodes.parquet"
    if not out.exists():
        lt.run(["export", "--in", str(d / "ledger"), "--out", str(out)])
    return out


@pytest.fixture(scope="module")
def verify(plan_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("verify")
    _run(plan_file, d / "ledger", d / "logs", policies.verify_first)
    return d


def test_verify_first_does_not_duplicate_in_strong_read_worlds(verify: Path) -> None:
    rows = _ledger(verify / "ledger", verify)
    strong = [r for r in rows if r["read_path"] == "strong"]
    assert len(strong) >= 12
    assert [r["episode_id"] for r in strong if r["duplicated"]] == []
    # The policy did verify (read back) after the committed faults.
    assert any(r["recovery"].startswith("verify") for r in strong)


@pytest.mark.parametrize("how", ["task", "eval"])
def test_epochs_give_pass_hat_k_either_way(plan_file: Path, tmp_path: Path, how: str) -> None:
    # -T epochs=3 and Inspect's --epochs 3 give the same reducers.
    eps = json.loads(plan_file.read_text())["episodes"][:2]
    small = tmp_path / "two.json"
    small.write_text(json.dumps({"episodes": eps}))
    kw: dict[str, Any] = {"epochs": 3} if how == "task" else {}
    log = _run(small, tmp_path / "ledger", tmp_path / "logs", policies.blind_retry,
               eval_kw={"epochs": 3} if how == "eval" else None, **kw)
    rows = _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    ids = sorted(rows)
    assert len(ids) == 6 and len(set(ids)) == 6
    assert len({r["pair_key"] for r in rows.values()}) == 2  # the same two worlds
    assert {s.reducer for s in log.results.scores} == {"mean", "pass_hat_k"}
    # pass^3 of each sample and outcome: 1 exactly when its 3 epochs all have it.
    by_sample: dict[str, list[Any]] = {}
    for smp in log.samples:
        by_sample.setdefault(str(smp.id), []).append(smp.scores)
    for red in (r for r in log.reductions if r.reducer == "pass_hat_k"):
        assert len(red.samples) == 2
        for rs in red.samples:
            vals = [sc[red.scorer].value for sc in by_sample[str(rs.sample_id)]]
            assert len(vals) == 3 and rs.value == float(all(v == 1 for v in vals)), (rs.sample_id, red.scorer)


def test_rerun_of_a_sample_gets_its_own_episode(plan_file: Path, tmp_path: Path) -> None:
    eps = json.loads(plan_file.read_text())["episodes"][1:2]  # timeout_post
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"episodes": eps}))
    _run(one, tmp_path / "ledger", tmp_path / "logs", policies.verify_first)
    _run(one, tmp_path / "ledger", tmp_path / "logs", policies.blind_retry)
    rows = _ledger(tmp_path / "ledger", tmp_path)
    # The second attempt was served (not skipped as already recorded) and
    # is the ledger's episode; the first is kept aside.
    assert len(rows) == 1 and rows[0]["recovery"] == "blind_retry"
    assert len(list((tmp_path / "ledger").glob("*.superseded-1"))) == 1


def test_inspect_eval_cli_finds_the_task(tmp_path: Path, binary: str) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    proc = subprocess.run([str(inspect), "eval", "limbo_toolkit/limbo", "--model", "mockllm/model", "-T", "limit=1",
                           "-T", f"ledger={tmp_path / 'ledger'}", "--log-dir", str(tmp_path / "logs"),
                           "--display", "none"], capture_output=True, text=True,
                          env={**os.environ, "LIMBO_ANALYZE": binary})
    logs = list((tmp_path / "logs").glob("*.eval"))
    assert logs, proc.stderr[-2000:]
    log = read_eval_log(str(logs[0]), header_only=True)
    assert log.eval.task == "limbo_toolkit/limbo"
    assert log.eval.dataset.samples == 1


def test_episode_recorded_on_disconnect(plan_file: Path, tmp_path: Path) -> None:
    # No finish call: the server grades the episode on stdin EOF and must
    # have written and synced it before the client's 2 s kill.
    eps = json.loads(plan_file.read_text())["episodes"][:3]
    p = tmp_path / "three.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.no_finish)
    rows = _ledger(tmp_path / "ledger", tmp_path)
    assert len(rows) == 3 and not any(r["reported_success"] for r in rows)
    assert all(s.scores["overclaim"].value == 0 for s in log.samples)


def test_gate_fails_on_a_regression(blind: tuple[Any, Path], verify: Path) -> None:
    # The agent builder's loop: the blind policy against the verify-first
    # baseline of the same plan, world by world.
    _, d = blind
    args = ["gate", "--in", str(d / "ledger"), "--baseline", str(verify / "ledger"), "--margin", "0.05"]
    with pytest.raises(lt.LimboError) as e:
        lt.run(args)
    assert e.value.returncode == 1 and "gate failed" in e.value.message and "36 pairs" in e.value.message
    # Identical runs pass only with enough pairs to exclude the margin:
    # 36 do at 0.10 (Tango's interval needs 25), not at 0.05 (52).
    same = ["gate", "--in", str(verify / "ledger"), "--baseline", str(verify / "ledger")]
    ok = lt.run(same + ["--margin", "0.1"])
    assert ok.stdout.startswith("gate pass")
    with pytest.raises(lt.LimboError) as e:
        lt.run(same + ["--margin", "0.05"])
    assert e.value.returncode == 1 and "36 pairs" in e.value.message
    with pytest.raises(lt.LimboError) as e:
        lt.run(args[:-1] + ["0"])
    assert e.value.returncode == 2 and "--margin" in e.value.message


def test_packaged_task_data_is_the_sandbox_s() -> None:
    # focal_write in Sample.metadata comes from the packaged copy.
    import limbo_toolkit.inspect as li

    packaged = Path(li.__file__).with_name("tasks.json").read_bytes()
    assert packaged == (policies.REPO / "sandbox" / "data" / "tasks.json").read_bytes(), \
        "copy sandbox/data/tasks.json to python/src/limbo_toolkit/inspect/tasks.json"


def test_default_plan_samples(binary: str) -> None:
    task = limbo(limit=None)
    samples = list(task.dataset)
    assert len(samples) == 217
    s = samples[0]
    assert s.id == "native/vanilla/default/T01/0/0/timeout_pre"
    assert {"template", "instance", "focal_write", "fault_mode", "contract", "condition"} <= set(s.metadata)
    # Unlabelled, the world depends on the model under evaluation: its id
    # and seed are set when the sample runs, never those of another world.
    assert not {"episode_id", "seed", "model"} & set(s.metadata)
    assert task.version == TASK_VERSION and task.metadata["limbo_schema_version"] == lt.SCHEMA_VERSION
    assert len(task.metadata["limbo_plan_sha256"]) == 64 and task.metadata["limbo_binary_version"]
    assert s.metadata["focal_write"] == "social_publish" and "Act exactly once" in str(s.input)


def test_every_session_is_scored(plan_file: Path, tmp_path: Path) -> None:
    # A model that answers in text and never calls a tool is an episode
    # (nothing done, nothing duplicated), scored, not an error.
    eps = json.loads(plan_file.read_text())["episodes"][:3]
    p = tmp_path / "three.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.silent)
    rows = _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    assert all(r["tool_calls"] == 0 and not r["task_success"] and not r["duplicated"] for r in rows.values())


def test_cut_by_message_limit_is_scored(plan_file: Path, tmp_path: Path) -> None:
    # Cut by --message-limit after a tool call or two, before finish: the
    # episode is in the ledger, as the calls the transcript shows, and
    # scored from it.
    eps = json.loads(plan_file.read_text())["episodes"][:3]
    p = tmp_path / "three.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.blind_retry, eval_kw={"message_limit": 4})
    assert all(s.limit is not None and s.limit.type == "message" for s in log.samples)
    rows = _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    for smp in log.samples:
        row = rows[smp.metadata["limbo_episode_id"]]
        # The calls the model made (the last one's result may be cut from
        # the transcript by the limit, but the sandbox ran it).
        calls = sum(len(m.tool_calls or []) for m in smp.messages if m.role == "assistant")
        assert 0 < row["tool_calls"] == calls < 4 and not row["reported_success"], (row["tool_calls"], calls)


def test_retry_on_error_scores_the_last_attempt(plan_file: Path, tmp_path: Path) -> None:
    # Four templates, so four distinct prompts: each sample fails once.
    eps = [e for e in json.loads(plan_file.read_text())["episodes"] if e["fault_mode"] == "timeout_post"][:4]
    p = tmp_path / "four.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.flaky(policies.blind_retry),
               eval_kw={"retry_on_error": 1})
    assert all(len(s.error_retries or []) == 1 for s in log.samples)
    _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    # The failed attempts' episodes are kept aside, not counted.
    assert len(list((tmp_path / "ledger").glob("*.superseded-1"))) == 4


def test_sixteen_parallel_samples(plan_file: Path, tmp_path: Path) -> None:
    eps = json.loads(plan_file.read_text())["episodes"][:16]
    p = tmp_path / "sixteen.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.blind_retry, eval_kw={"max_samples": 16})
    assert len(_assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)) == 16
    seeds = {s.metadata["seed"] for s in log.samples}
    assert all(-(1 << 63) <= x < (1 << 63) for x in seeds)


def test_unlabelled_samples_carry_the_world_that_ran(tmp_path: Path) -> None:
    # Without -T model_label the model's name labels the world: the
    # sample's episode id and (signed) seed are those of the world served.
    log = _run_default(tmp_path, limit=2)
    rows = _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    for smp in log.samples:
        assert smp.metadata["model"] == "mockllm/model"
        assert rows[smp.metadata["limbo_episode_id"]]["seed"] == smp.metadata["seed"]
    plan = load_plan(model="mockllm/model")
    assert {signed_seed(e["seed"]) for e in plan[:2]} == {s.metadata["seed"] for s in log.samples}


def _run_default(tmp_path: Path, **kw: Any) -> Any:
    [log] = inspect_eval(limbo(ledger=str(tmp_path / "ledger"), **kw), model=policies.mock_model(policies.blind_retry),
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    return log


def test_users_own_solver(plan_file: Path, tmp_path: Path) -> None:
    # solver= runs the user's agent with the sandbox's tools.
    from inspect_ai.solver import Generate, TaskState, solver

    seen: list[list[str]] = []

    @solver
    def mine() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            from inspect_ai.tool import ToolDef

            seen.append(sorted(ToolDef(t).name for t in state.tools))
            return await generate(state, tool_calls="loop")

        return solve

    eps = json.loads(plan_file.read_text())["episodes"][:2]
    p = tmp_path / "two.json"
    p.write_text(json.dumps({"episodes": eps}))
    log = _run(p, tmp_path / "ledger", tmp_path / "logs", policies.verify_first, solver=mine())
    _assert_scored_as_ledger(log, tmp_path / "ledger", tmp_path)
    assert len(seen) == 2 and all("finish" in names and "social_publish" in names for names in seen)


def test_export_inspect_log_opens_in_inspect(blind: tuple[Any, Path], tmp_path: Path) -> None:
    # limbo-analyze export --to inspect-log: the ledger the task wrote,
    # as an .eval log that Inspect's reader and samples_df open, with the
    # scores the task gave and the calls as the transcript.
    log, d = blind
    out = tmp_path / "ledger.eval"
    lt.run(["export", "--in", str(d / "ledger"), "--out", str(out), "--to", "inspect-log"])
    exported = read_eval_log(str(out))
    assert exported.status == "success" and len(exported.samples) == len(log.samples)
    by_id = {s.metadata["limbo_episode_id"]: s for s in log.samples}
    for s in exported.samples:
        original = by_id[s.metadata["episode_id"]]
        assert {k: v.value for k, v in s.scores.items()} == {k: v.value for k, v in original.scores.items()}
        calls = [m for m in s.messages if m.role == "assistant" and m.tool_calls]
        assert len(calls) == s.metadata["tool_calls"] > 0
        assert s.metadata["seed"] == original.metadata["seed"]
    df = samples_df(str(out), quiet=True)
    assert len(df) == len(log.samples) and int(df["score_duplicated"].astype(int).sum()) == sum(
        s.scores["duplicated"].value for s in log.samples)
    again = tmp_path / "again.eval"
    lt.run(["export", "--in", str(d / "ledger"), "--out", str(again), "--to", "inspect-log"])
    assert again.read_bytes() == out.read_bytes()
