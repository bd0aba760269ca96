// Package agent simulates the tool-using agents of the LIMBO study: a policy
// engine driven by per-model action propensities, the recovery conditions
// of the paper, and the guard middleware.
//
// # What an agent sees
//
// An Agent decides only from what a real agent sees: the tool
// specifications (sandbox.ToolSpec: description, KeyHonoured, ReadBack,
// DocumentedLag), the observations its calls return, the clock, and its own
// random draws. It never reads the fault mode, the delay or the hidden
// outcome; duplicates and exactly-once success come out of the sandbox's
// mechanics (Proposition 1 is tested as an invariant: a not-executed world
// and a late world give identical call traces until the original lands).
//
// # Behaviour
//
// Each required write is sent, with an idempotency key when the description
// honours one (propensity k_nat on natively keyed tools, k_ke on tools the
// keys-everywhere contract newly keys). After a timeout or HTTP 500 the
// agent either re-issues blindly (1−v) or verifies through the documented
// read path (v_to; after a 500 v_500, by default derived from v_to by the
// global misleading-500 contrast), waiting out the documented lag (w) or not; after
// a positive read-back it skips (s); after an empty one it gives up (g),
// re-issues at once (π) or waits 120–240 s and re-checks. A re-issue reuses
// the key (r) or mints a fresh one; without a key it may drift the
// arguments (a), which defeats a key derived from them. A 409 "still being
// processed" is waited out twice with the same key; a 409/412/404 from a
// naturally idempotent write means already applied. The final report says
// "completed" after an ambiguous fault with propensity "completed" and lists
// no uncertainty with propensity "silent" (docs/simulation.md, Agents, item 5).
//
// Three mechanisms act the same way on every model (profile block
// "mechanisms" and "care"): verifying costs (the chance of reading back
// falls as 2^(−lag/h) with the read path's documented lag); an empty read
// taken after waiting out a documented lag is believed more (eventual
// trust, raising the chance of re-issuing at once); and a prompt condition
// may raise every model's careful propensities by one logit shift
// (Params.Care), which leaves models that always verify unchanged.
//
// Two knobs are off in the embedded profiles (docs/simulation.md explains
// why): "abandon", handing the rest of the task over after a read-back
// shows that an unkeyed ambiguous write had taken effect, and the top-level
// "template_sd", a per-template difficulty shared by every model
// (TemplateDifficulty) that moves the careful and hasty propensities on the
// logit scale (Params.Harden).
//
// # Propensities as data
//
// Profiles (docs/simulation.md, Behavioural parameters) live in profiles.json, embedded and
// replaceable (DecodeProfiles): base values per model, per-condition shifts
// (global and per model), the plain-cue effect (Table 10) and harness
// perturbations. Effective adds the shifts and clamps to [0,1].
//
// # Common random numbers
//
// Behavioural uniforms come from a PCG keyed by the run seed and the world
// (model, task instance, focal write, fault mode), one slot per decision
// in a fixed order, shared by every condition, contract and cue arm, so a
// condition that shifts a threshold changes only the decisions near it
// (docs/simulation.md, Seeds and common random numbers: McNemar discordance of Tables 10 and 13). With
// probability noise (1%) a decision uses the episode's own stream instead.
//
// # Conditions
//
// ParseCondition maps the ledger's condition values (docs/ledger.md) to mechanics: prompt-only
// conditions (vanilla, aware, reflect, rules, vbr) are profile shifts;
// sdk-retry wraps the world in a RetryClient (transparent retries of
// timeouts and 5xx, identical request, the agent never sees them); guard
// wraps it in a Guard (docs/simulation.md, Agents: the guard condition), written against the Caller
// interface that *sandbox.World satisfies so the MCP server can reuse it;
// state-oracle and outcome-oracle expose the oracle tools, which the agent
// calls instead of reading back; wait-Δ makes the agent verify no earlier
// than Δ (plus the documented lag) after the original send and re-issue
// only if absent.
package agent
