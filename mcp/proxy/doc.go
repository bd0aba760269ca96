// Package proxy puts LIMBO's faults, ledger and grading in front of any
// MCP server (docs/proxy.md): it is an MCP server that forwards to an
// upstream MCP server (a command over stdio, or a streamable-HTTP URL),
// injects the study's fault modes at the commit boundary of the
// upstream's writes, and writes one raw ledger line per session, graded by
// rules the line carries (ledger.GradeRules).
//
// # Sessions and episodes
//
// One MCP session is one episode. The proxy keeps one connection to the
// upstream and every session shares it (the upstream's state is shared in
// any case). Over stdio the proxy serves one session; over streamable
// HTTP each new session takes the next pending episode of the plan (or,
// without a plan, the next repetition of the one world the flags
// describe). A session that leaves without a tool call is not an episode.
// After a session_lost fault the harness's next session continues the
// episode, so that a re-sent write counts in the episode it repeats.
//
// # The contract
//
// What the proxy knows of a tool is its entry in the upstream's tools/list
// (schema and annotations) and the user's contract file (Contract): read
// or write, idempotent or not, the JSON pointers that identify its logical
// effect, the argument the upstream deduplicates by, the array of a
// batch's items, a read-back. Without an entry the annotations decide
// (readOnlyHint: a read; idempotentHint: an idempotent write; neither: a
// non-idempotent write).
//
// # Faults
//
// The focal call is the Nth call of the episode's tool. Under its fault
// mode the proxy withholds it (timeout_pre, http500_pre), forwards it and
// drops the answer (timeout_post, http500_post), forwards it late
// (timeout_late, timeout_late_tail), forwards it twice (redelivery),
// forwards half a batch (partial_batch), or, over HTTP, loses the session
// or cuts the connection after forwarding it (session_lost, stream_drop).
// The agent observes what serve's sandbox shows for the same fault. A
// fault that could not land (the upstream refused a call whose answer the
// fault was to replace) is recorded as not fired. Late and redelivered copies still pending when the episode
// ends are delivered then: the agent can no longer observe when.
//
// # The guard
//
// With Options.Guard, package guard stands in front of the fault
// injection on every non-idempotent write (keys: the agent's
// idempotency_key, which the proxy adds to those tools; derived: a hash of
// the effect), its keys in a durable store. An answer the proxy never
// learned is settled by the contract's read-back, never replayed as a
// success. Options.Middleware wraps the call path in front of it.
package proxy
