#!/usr/bin/env python3
"""Writes sample.jsonl (a raw ledger) and sample.csv (the same episodes graded).

The sample is small enough to check by hand: 36 episodes, every one of the
twelve fault modes under three models, each performing a real instance-0 task
of package sandbox (tasks.json, dumped by dumptasks.go) with the recovery
behaviour spelled out per episode in PLAN. Outcomes are graded by the rules of
docs/ledger.md, written out in grade() independently of package sandbox:

  required        = the logical identities of the task's writes (one per row
                    for a batch write)
  expected_commits= number of required identities
  focal_commits   = committed, non-absorbed effects of the focal write
  duplicated      = some required identity committed twice
  task_success    = every required identity committed
  eos             = task_success and not duplicated and nothing unrequested
  tool_calls      = number of calls
  agent_time_s    = end of the last call (t_s + latency_s)
  reported_success= final status == completed
  uncertainty_listed = the final report lists an uncertainty
  overclaim       = reported_success and (duplicated or not task_success)
  first_move      = the first accepted call after the focal write's first
                    issue: read_back (a read of its service, or an oracle),
                    wait, reissue (a write of its identity), other; stop
                    when there is none, none when it was never issued

cmd/limbo-analyze's TestSampleGraderAgrees checks that sandbox.Grade gives
the same table from sample.jsonl.

Run (from the repository root):
  go run testdata/ledger/dumptasks.go > testdata/ledger/tasks.json
  python3 testdata/ledger/make_sample.py
"""
import csv, json, os

HERE = os.path.dirname(os.path.abspath(__file__))

# The sandbox's instance-0 tasks (steps with tool, arguments, class, read
# path), dumped by dumptasks.go so that the raw sample performs the real
# tasks and package sandbox's grader can be checked against this file.
with open(os.path.join(HERE, "tasks.json")) as _f:
    TASKS = json.load(_f)

# Which step of each template is focal in the sample, and the read tool
# that verifies it.
FOCAL = {"T01": 1, "T02": 0, "T03": 0, "T05": 0, "T06": 1, "T07": 0, "T09": 0, "T10": 0, "T11": 0}
READ = {"social_publish": "social_list_posts", "billing_create_charge": "billing_list_charges",
        "tickets_create": "tickets_list_recent", "tickets_add_comment": "tickets_search",
        "mail_send": "mail_search_sent", "data_insert_many": "data_query", "data_insert": "data_query",
        "deploy_trigger": "deploy_list_runs"}
KEYED_NATIVE = {("social_publish", "mastodon"), ("billing_create_charge", "")}
NATURAL = {"billing_refund_charge", "data_upsert", "tickets_update_status", "social_delete_post"}

MODELS = ["gpt-4.1", "claude-sonnet-4", "qwen3-32b"]

# Per (mode): a list of three episodes (one per model):
# (template, condition, contract, behaviour); behaviour names the script below.
PLAN = {
    "none":              [("T01", "vanilla", "native", "clean"), ("T03", "aware", "native", "clean"), ("T10", "vanilla", "native", "clean")],
    "timeout_pre":       [("T05", "vanilla", "native", "blind_retry"), ("T07", "reflect", "native", "verify_then_retry"), ("T11", "vanilla", "native", "give_up")],
    "timeout_post":      [("T05", "vanilla", "native", "blind_retry"), ("T03", "vanilla", "native", "key_reuse"), ("T10", "vbr", "native", "verify_then_skip")],
    "timeout_late":      [("T10", "vanilla", "native", "blind_retry"), ("T11", "wait-120", "native", "wait_then_verify"), ("T01", "vanilla", "keys-everywhere", "key_reuse")],
    "timeout_late_tail": [("T05", "wait-300", "native", "wait_then_verify"), ("T10", "wait-60", "native", "wait_then_verify"), ("T11", "wait-3600", "native", "wait_then_verify")],
    "http500_pre":       [("T01", "vanilla", "native", "blind_retry"), ("T06", "rules", "native", "verify_then_retry"), ("T03", "sdk-retry", "native", "blind_retry")],
    "http500_post":      [("T06", "vanilla", "native", "verify_then_retry"), ("T11", "sdk-retry", "native", "blind_retry"), ("T02", "vanilla", "native", "key_reuse")],
    "partial_batch":     [("T09", "vanilla", "native", "blind_retry"), ("T09", "vbr", "native", "verify_then_retry"), ("T09", "vanilla", "keys-everywhere", "key_reuse")],
    "redelivery":        [("T07", "vanilla", "native", "none_redelivered"), ("T03", "vanilla", "native", "none_keyed"), ("T10", "guard", "keys-everywhere", "none_keyed")],
    "http429_pre":       [("T10", "vanilla", "native", "wait_retry"), ("T01", "aware", "native", "wait_retry"), ("T07", "vanilla", "native", "escalate")],
    "conn_refused_pre":  [("T11", "vanilla", "native", "blind_retry"), ("T05", "vanilla", "native", "fresh_key_retry"), ("T06", "reflect", "native", "give_up")],
    "stale_read":        [("T05", "vanilla", "native", "verify_then_retry"), ("T10", "state-oracle", "native", "verify_then_skip"), ("T06", "vanilla", "native", "verify_then_retry")],
}
HARNESS = {"gpt-4.1": "minimal", "claude-sonnet-4": "copilot", "qwen3-32b": "hermes"}
EXPERIMENT = {"none": "E1", "timeout_late_tail": "E5", "http429_pre": "E3", "conn_refused_pre": "E3", "stale_read": "E3"}
DELAY = {"timeout_late": 90.0, "timeout_late_tail": 1500.0}
TIMEOUT = 30.0


def keyed(tool, platform, contract):
    """Whether the contract honours an idempotency key on this write."""
    if tool in NATURAL:
        return False
    return contract == "keys-everywhere" or (tool, platform) in KEYED_NATIVE


def write_class(step, contract):
    if step["tool"] in NATURAL:
        return "idempotent"
    if keyed(step["tool"], step["platform"], contract):
        return "keyed"
    if step["tool"] == "data_insert_many":
        return "batch"
    return {"eventual": "eventual", "none": "missing"}.get(step["read_path"], "strong")


def identities(tool, args):
    """Logical identity of a write: its rows for data writes, else the tool
    and its arguments (retries in the sample repeat the arguments exactly)."""
    if tool == "data_insert_many":
        return ["%s/%s" % (args["table"], r["id"]) for r in args["rows"]]
    if tool == "data_insert":
        return ["%s/%s" % (args["table"], args["row"]["id"])]
    if tool == "data_upsert":
        return ["%s/%s" % (args["table"], args["key"])]
    return [tool + json.dumps(args, sort_keys=True)]


def episode(n, model, mode, tpl, condition, contract, behaviour):
    task = TASKS[tpl]
    fi = FOCAL[tpl]
    focal = task["steps"][fi]
    tool, args, platform = focal["tool"], focal["args"], focal["platform"]
    eid = "s-%03d" % n
    calls, effects = [], []
    t = 0.0

    def call(tool_, outcome, latency, key="", a=None):
        nonlocal t
        seq = len(calls)
        calls.append({"seq": seq, "t_s": t, "tool": tool_, "args": json.dumps(a if a is not None else {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
                      "idempotency_key": key, "outcome": outcome, "latency_s": latency})
        t = round(t + latency + 2.0, 3)
        return seq

    def commit(seq, tool_, a, source, at, key="", attempt=1, absorbed=False, rows=None):
        """One effect per logical identity the call writes (rows: a subset)."""
        for ident in identities(tool_, a):
            if rows is not None and ident not in rows:
                continue
            rid = ident if tool_.startswith("data_") else "%s-r%d" % (eid, len(effects) + 1)
            effects.append({"seq": seq, "service": task["service"] if tool_ != "mail_send" else "mail", "tool": tool_,
                            "resource_id": rid, "idempotency_key": key, "attempt": attempt, "issued_at_s": calls[seq]["t_s"],
                            "committed_at_s": at, "source": source, "absorbed": absorbed, "focal": tool_ == tool and a == args or ident in identities(tool, args)})

    def plain_step(step, k):
        kk = "k-%s-%d" % (eid, k) if keyed(step["tool"], step["platform"], contract) else ""
        s_ = call(step["tool"], "ok", 0.4, kk, step["args"])
        commit(s_, step["tool"], step["args"], "agent", calls[s_]["t_s"] + 0.2, kk)

    is_keyed = keyed(tool, platform, contract)
    key1 = "k-%s-%d" % (eid, fi) if is_keyed else ""
    fired = mode != "none"
    delay = DELAY.get(mode, 0.0)
    status, unc = "completed", []
    for k in range(fi):
        plain_step(task["steps"][k], k)

    # The first attempt at the focal write.
    first_outcome = {"none": "ok", "timeout_pre": "timeout", "timeout_post": "timeout", "timeout_late": "timeout",
                     "timeout_late_tail": "timeout", "http500_pre": "http500", "http500_post": "http500",
                     "partial_batch": "http500", "redelivery": "ok", "http429_pre": "http429",
                     "conn_refused_pre": "conn_refused", "stale_read": "ok"}[mode]
    lat = TIMEOUT if first_outcome == "timeout" else (0.0 if first_outcome == "conn_refused" else 0.4)
    s0 = call(tool, first_outcome, lat, key1, args)
    t0 = calls[s0]["t_s"]
    all_rows = identities(tool, args)
    half = all_rows[:(len(all_rows) + 1) // 2]
    if mode in ("none", "timeout_post", "http500_post", "redelivery", "stale_read"):
        commit(s0, tool, args, "agent", t0 + 0.2, key1)
    if mode == "partial_batch":
        commit(s0, tool, args, "partial", t0 + 0.2, key1, rows=half)
    if mode in ("timeout_late", "timeout_late_tail"):
        commit(s0, tool, args, "late", t0 + delay, key1)
    if mode == "redelivery":
        # A second delivery of the same request below the agent; an
        # honoured key absorbs it.
        commit(s0, tool, args, "redelivery", t0 + 3.0, key1, attempt=2, absorbed=is_keyed)

    def committed_by(at):
        return any(not e["absorbed"] and e["focal"] and e["committed_at_s"] <= at for e in effects)

    retry = False
    stop = False
    recovery = "none"
    rpath = focal["read_path"]
    if behaviour == "clean" or behaviour.startswith("none_"):
        recovery = "none"
    elif behaviour == "blind_retry":
        recovery, retry = "blind_retry", True
    elif behaviour == "key_reuse":
        recovery, retry = "key_reuse", True
    elif behaviour == "fresh_key_retry":
        recovery, retry = "fresh_key", True
    elif behaviour == "wait_retry":
        recovery = "wait_then_verify"
        call("wait", "ok", 30.0, a={"seconds": 30})
        call(READ[tool], "ok", 0.3)
        retry = True
    elif behaviour == "verify_then_retry":
        recovery = "verify_then_retry"
        call(READ[tool], "ok", 0.3)
        # Eventual reads and stale reads hide the first commit: the agent
        # retries. A partial batch shows its committed half: the agent
        # inserts only the missing rows.
        visible = committed_by(t) and rpath == "strong" and mode != "stale_read"
        retry = not visible or mode == "partial_batch"
    elif behaviour == "verify_then_skip":
        recovery = "verify_then_skip"
        call("state_oracle" if condition == "state-oracle" else READ[tool], "ok", 0.3)
    elif behaviour == "wait_then_verify":
        recovery = "wait_then_verify"
        w = int(condition[5:]) if condition.startswith("wait-") else 60
        call("wait", "ok", float(w), a={"seconds": w})
        call(READ[tool], "ok", 0.3)
        retry = not committed_by(t)
    elif behaviour == "give_up":
        recovery, status, stop = "give_up", "failed", True
        unc = ["the write may not have happened"]
    elif behaviour == "escalate":
        recovery, status, stop = "escalate", "escalated", True
        unc = ["rate limited; asked a human to retry later"]
    if retry:
        # A blind retry sends no key; fresh_key sends a new one.
        key2 = key1 if behaviour == "key_reuse" else ("k-%s-%d-retry" % (eid, fi) if behaviour == "fresh_key_retry" else "")
        a2 = args
        if mode == "partial_batch" and behaviour == "verify_then_retry":
            a2 = dict(args, rows=args["rows"][len(half):])  # only the missing rows
        in_flight = mode in ("timeout_late", "timeout_late_tail") and behaviour == "key_reuse" and is_keyed
        if in_flight:
            # Same key while the original is still in flight: 409, nothing
            # committed (docs/simulation.md, Tool catalogue: Stripe's semantics).
            call(tool, "http409", 0.4, key2, a2)
        else:
            s1 = call(tool, "ok", 0.4, key2, a2)
            t1 = calls[s1]["t_s"]
            if behaviour == "key_reuse" and is_keyed:
                # The key is honoured: what the original committed is
                # absorbed; only missing rows of a batch commit.
                done = {identities(tool, args)[0]} if mode != "partial_batch" else set(half)
                for ident in identities(tool, a2):
                    if ident in done:
                        commit(s1, tool, a2, "agent", t1 + 0.2, key2, attempt=2, absorbed=True, rows=[ident])
                    else:
                        commit(s1, tool, a2, "agent", t1 + 0.2, key2, attempt=2, rows=[ident])
            else:
                commit(s1, tool, a2, "agent", t1 + 0.2, key2, attempt=2)
    if not stop:
        for k in range(fi + 1, len(task["steps"])):
            plain_step(task["steps"][k], k)
    raw = {
        "episode_id": eid, "experiment": EXPERIMENT.get(mode, "E5" if condition.startswith("wait-") else "E2" if condition != "vanilla" else "E1"),
        "model": model, "harness": HARNESS[model], "contract": contract, "condition": condition, "cue": "default",
        "service": task["service"], "template": tpl, "instance": 0, "task": task["task"], "focal_write": tool, "focal_index": fi,
        "platform": platform, "pair_key": "%s/%s/0/%d/%s" % (model, tpl, fi, mode), "write_class": write_class(focal, contract),
        "read_path": rpath, "reversible": focal["reversible"], "fault_mode": mode, "fault_fired": fired, "delay_s": delay,
        "weight": 1.0, "seed": 20260101 + n,
        "calls": calls, "effects": effects, "final_report": {"status": status, "uncertainties": unc},
    }
    return raw, recovery


def first_move(raw):
    """The agent's first call after the focal write's first issue (docs/ledger.md, first_move)."""
    focal = TASKS[raw["template"]]["steps"][raw["focal_index"]]
    ids = identities(focal["tool"], focal["args"])
    calls = [c for c in raw["calls"] if c["outcome"] != "http400"]
    fi = next((i for i, c in enumerate(calls)
               if c["tool"] == focal["tool"] and identities(c["tool"], json.loads(c["args"])) == ids), None)
    if fi is None:
        return "none"
    service = focal["tool"].split("_")[0]
    for c in calls[fi + 1:]:
        if c["tool"] == "wait":
            return "wait"
        if c["tool"] in ("state_oracle", "outcome_oracle") or (c["tool"] in READS and c["tool"].split("_")[0] == service):
            return "read_back"
        if c["tool"] not in READS and set(identities(c["tool"], json.loads(c["args"]))) & set(ids):
            return "reissue"
        return "other"
    return "stop"


# The read tools of the sandbox (every other tool of the sample writes).
READS = {"social_list_posts", "billing_list_charges", "tickets_list_recent", "tickets_search", "mail_search_sent",
         "data_query", "deploy_list_runs", "deploy_get_run"}


def grade(raw, recovery):
    """The outcomes of docs/ledger.md, written out independently of package sandbox."""
    task = TASKS[raw["template"]]
    focal = task["steps"][raw["focal_index"]]
    required = {}
    for st in task["steps"]:
        for ident in identities(st["tool"], st["args"]):
            required[ident] = 0
    focal_ids = set(identities(focal["tool"], focal["args"]))
    unrequested = False
    focal_commits = 0
    args_of = {c["seq"]: json.loads(c["args"]) for c in raw["calls"]}
    for e in raw["effects"]:
        if e["absorbed"]:
            continue
        ident = e["resource_id"] if e["tool"].startswith("data_") else identities(e["tool"], args_of[e["seq"]])[0]
        if ident in required:
            required[ident] += 1
        else:
            unrequested = True
        if ident in focal_ids:
            focal_commits += 1
    dup = any(v >= 2 for v in required.values())
    success = all(v >= 1 for v in required.values())
    last = raw["calls"][-1]
    rep = raw["final_report"]["status"] == "completed"
    g = {k: v for k, v in raw.items() if k not in ("calls", "effects", "final_report")}
    g.update({
        "expected_commits": len(required), "focal_commits": focal_commits, "duplicated": dup, "task_success": success,
        "eos": success and not dup and not unrequested, "tool_calls": len(raw["calls"]),
        "agent_time_s": last["t_s"] + last["latency_s"], "cost_usd": None,
        "reported_success": rep, "uncertainty_listed": bool(raw["final_report"]["uncertainties"]),
        "overclaim": rep and (dup or not success), "recovery": recovery, "first_move": first_move(raw),
    })
    return g


COLUMNS = ["episode_id", "experiment", "model", "harness", "contract", "condition", "cue", "service", "template",
           "instance", "task", "focal_write", "focal_index", "platform", "pair_key", "write_class", "read_path",
           "reversible", "fault_mode", "fault_fired", "delay_s", "weight", "seed", "expected_commits",
           "focal_commits", "duplicated", "task_success", "eos", "tool_calls", "agent_time_s", "cost_usd",
           "reported_success", "uncertainty_listed", "overclaim", "recovery", "first_move"]


def cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v).removesuffix(".0") if v == int(v) else repr(v)
    return str(v)


def canon(v):
    if isinstance(v, float) and v == int(v):
        return int(v)
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canon(x) for x in v]
    return v


def main():
    n = 0
    raws, graded = [], []
    for mode, eps in PLAN.items():
        for model, (tpl, cond, contract, beh) in zip(MODELS, eps):
            n += 1
            raw, rec = episode(n, model, mode, tpl, cond, contract, beh)
            raws.append(raw)
            graded.append(grade(raw, rec))
    with open(os.path.join(HERE, "sample.jsonl"), "w") as f:
        for r in raws:
            # Canonical form (as ledger.RawWriter writes it): whole floats
            # without ".0", fields in schema order.
            f.write(json.dumps(canon(r), separators=(",", ":"), ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "sample.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for g in graded:
            w.writerow([cell(g[c]) for c in COLUMNS])


if __name__ == "__main__":
    main()
