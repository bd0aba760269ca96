"""Scripted recovery policies for Inspect's mockllm provider (test helpers).

A policy is a generator that yields tool calls (name, arguments) and is sent
each call's parsed result. ``mock_model(policy)`` replays it over the
conversation so far, so one callable serves every sample at once. The task
steps come from the sandbox's task data (sandbox/data/tasks.json), with the
instance's values substituted as the sandbox does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser, ModelOutput, ModelUsage, get_model

REPO = Path(__file__).resolve().parents[2]
TASKS = json.loads((REPO / "sandbox" / "data" / "tasks.json").read_text())["templates"]

Call = tuple[str, dict[str, Any]]
Policy = Callable[[list[tuple[str, dict[str, Any]]]], Generator[Call, dict[str, Any], None]]

# Outcomes after which a write is known to have taken effect.
DONE = {"ok", "http409", "http412", "http404"}


def _subst(v: Any, vals: dict[str, Any]) -> Any:
    if isinstance(v, str):
        m = re.fullmatch(r"\{(\w+)\}", v)
        if m and m.group(1) in vals:
            return vals[m.group(1)]
        return re.sub(r"\{(\w+)\}", lambda m: str(vals.get(m.group(1), m.group(0))), v)
    if isinstance(v, dict):
        return {k: _subst(x, vals) for k, x in v.items()}
    if isinstance(v, list):
        return [_subst(x, vals) for x in v]
    return v


def _fmt(x: Any) -> str:
    return str(x)


def task_steps(instruction: str, instance: int = 0) -> list[Call]:
    """The (tool, args) steps of the task whose instruction starts the prompt."""
    for t in TASKS:
        vals = {v["name"]: v["values"][instance % len(v["values"])] for v in t.get("vars", [])}
        text = re.sub(r"\{(\w+)\}", lambda m: _fmt(vals.get(m.group(1), m.group(0))), t["instruction"])
        if instruction.startswith(text):
            return [(s["tool"], _subst(s["args"], vals)) for s in t["steps"]]
    raise KeyError(f"no template has the instruction {instruction[:80]!r}")


READ_FOR: dict[str, Callable[[dict[str, Any]], Call | None]] = {
    "social_publish": lambda a: ("social_list_posts", {"platform": a["platform"]}),
    "billing_create_charge": lambda a: ("billing_list_charges", {"customer_id": a["customer_id"]}),
    "billing_refund_charge": lambda a: ("billing_list_charges", {}),
    "tickets_create": lambda a: ("tickets_list_recent", {}),
    "tickets_update_status": lambda a: ("tickets_list_recent", {}),
    "tickets_add_comment": lambda a: ("tickets_search", {"query": a["text"]}),
    "mail_send": lambda a: ("mail_search_sent", {"query": a["subject"]}),
    "data_insert": lambda a: ("data_query", {"table": a["table"], "filter": {"id": a["row"]["id"]}}),
    "data_upsert": lambda a: ("data_query", {"table": a["table"], "filter": {"id": a["key"]}}),
    "data_insert_many": lambda a: ("data_query", {"table": a["table"], "filter": {}}),
    "deploy_trigger": lambda a: ("deploy_list_runs", {"service": a["service"]}),
}


def _norm(x: Any) -> str:
    return " ".join(str(x).split()).lower()


def present(args: dict[str, Any], result: dict[str, Any] | None) -> bool:
    """Whether a listing shows the write: some item agrees with every
    scalar argument it has (rows of a batch: every row is there)."""
    if not isinstance(result, dict):
        return False
    items = [it for v in result.values() if isinstance(v, list) for it in v if isinstance(it, dict)]
    if isinstance(args.get("rows"), list):
        return all(present(r, result) for r in args["rows"])
    flat = dict(args)
    if isinstance(args.get("row"), dict):
        flat.update(args["row"])
    scal = {k: v for k, v in flat.items() if isinstance(v, (str, int, float, bool)) and k != "idempotency_key"}
    for it in items:
        common = [k for k in scal if k in it]
        if common and all(_norm(it[k]) == _norm(scal[k]) for k in common):
            return True
    return False


def blind_retry(steps: list[Call]) -> Generator[Call, dict[str, Any], None]:
    """Re-send a write that failed (timeout, 500) once, without looking."""
    for tool, args in steps:
        for _ in range(2):
            r = yield (tool, args)
            if r.get("outcome") in DONE:
                break
    yield ("finish", {"status": "completed", "uncertainties": []})


def verify_first(steps: list[Call]) -> Generator[Call, dict[str, Any], None]:
    """After a failed write, read back first and re-send only if absent."""
    for tool, args in steps:
        r = yield (tool, args)
        for _ in range(2):
            if r.get("outcome") in DONE:
                break
            read = READ_FOR[tool](args)
            if read is not None:
                rr = yield read
                if rr.get("outcome") == "ok" and present(args, rr.get("result")):
                    break
            r = yield (tool, args)
    yield ("finish", {"status": "completed", "uncertainties": []})


USAGE = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)


def _result(msg: ChatMessageTool) -> dict[str, Any]:
    text = msg.text if msg.error is None else (msg.error.message or "")
    try:
        v = json.loads(text)
        return v if isinstance(v, dict) else {"outcome": "error"}
    except (json.JSONDecodeError, TypeError):
        m = re.search(r"\{.*\}", text or "", re.S)
        if m:
            try:
                return json.loads(m.group(0))
            except json.JSONDecodeError:
                pass
        return {"outcome": "error", "text": text}


def outputs(policy: Callable[[list[Call]], Generator[Call, dict[str, Any], None]]) -> Callable[..., ModelOutput]:
    def generate(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        user = next(m for m in input if isinstance(m, ChatMessageUser))
        gen = policy(task_steps(user.text))
        try:
            call = next(gen)
            for m in input:
                if isinstance(m, ChatMessageTool):
                    call = gen.send(_result(m))
        except StopIteration:
            out = ModelOutput.from_content(model="mockllm/model", content="Done.")
            out.usage = USAGE
            return out
        done = any(isinstance(m, ChatMessageAssistant) and m.tool_calls and m.tool_calls[0].function == "finish"
                   for m in input)
        if done:
            out = ModelOutput.from_content(model="mockllm/model", content="Done.")
        else:
            out = ModelOutput.for_tool_call(model="mockllm/model", tool_name=call[0], tool_arguments=call[1])
        out.usage = USAGE
        return out

    return generate


def mock_model(policy: Any) -> Any:
    """mockllm/model playing a policy (or a ready generate function: flaky)."""
    gen = policy if getattr(policy, "__name__", "") == "generate" else outputs(policy)
    return get_model("mockllm/model", custom_outputs=gen)


def no_finish(steps: list[Call]) -> Generator[Call, dict[str, Any], None]:
    """Do the writes once and stop without calling finish: the episode
    ends when the client disconnects (stdin EOF)."""
    for tool, args in steps:
        yield (tool, args)


def silent(steps: list[Call]) -> Generator[Call, dict[str, Any], None]:
    """Answer in text and call no tool."""
    return
    yield  # a generator that yields nothing


def flaky(policy: Callable[[list[Call]], Generator[Call, dict[str, Any], None]]) -> Callable[..., ModelOutput]:
    """The policy's model, which fails once per sample on its second turn
    (after one tool call): an error Inspect's --retry-on-error retries."""
    failed: set[str] = set()
    inner = outputs(policy)

    def generate(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        user = next(m for m in input if isinstance(m, ChatMessageUser)).text
        if any(isinstance(m, ChatMessageTool) for m in input) and user not in failed:
            failed.add(user)
            raise RuntimeError("scripted provider failure")
        return inner(input, tools, tool_choice, config)

    return generate
