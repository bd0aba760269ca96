// Package sandbox is the LIMBO world: a virtual clock, the six services of
// the ledger's catalogue with their contracts, the mechanics of its fault
// modes, the ledger of committed effects, and the grader. It knows nothing of agents:
// an agent (or a harness over MCP) sees only tool descriptions (Catalogue,
// World.Tools), observations from World.Call, and the clock.
//
// # Services and contracts
//
// social, billing, tickets, mail, data and deploy, with the tools of the
// paper's Table 11 (docs/simulation.md, Tool catalogue) and the contracts of its Table 1:
// billing_create_charge honours an idempotency key, social_publish honours
// one on mastodon only; refund (409 on repeat), upsert (same row),
// update_status (412 unless from = current) and delete_post (404 on
// repeat) are naturally idempotent or conditional; the weibo listing lags
// 180 s, tickets_search and mail_search_sent lag 120 s, x has no listing.
// Under keys-everywhere every write honours a key. Keys follow Stripe's
// semantics with a 3 h window (longer than the 2 h tail of in-flight
// delays).
//
// # Time
//
// Nothing waits in wall time. The clock advances by each call's latency
// (reads 1–3 s, writes 1–4 s, drawn from the world's PCG), by the client
// timeout (30 s) on a timeout, by wait calls and by Advance. Late commits
// and redelivered copies are events in a queue ordered by time, then by
// insertion; Finish drains it before the ledger is graded.
//
// # Fault modes
//
// The modes are the ledger's catalogue (ledger.Faults: family, what the
// agent observes, what happens underneath, the exactly-once recovery);
// the sandbox registers a mechanic for each mode it injects (faults.go).
// The fault hits the first valid issue of the focal step's write (matched
// by logical identity). What the agent observes / what happens underneath:
//
//	none               success / executed once (control)
//	timeout_pre        timeout after 30 s / dropped before the service
//	timeout_post       timeout after 30 s / executed at send, response lost
//	timeout_late       timeout after 30 s / held, commits at send + 90 s
//	timeout_late_tail  timeout after 30 s / held, commits at send + δ (Spec.DelayS)
//	http500_pre        HTTP 500 / rejected, not executed
//	http500_post       HTTP 500 / executed
//	partial_batch      HTTP 500 on data_insert_many / first ⌈n/2⌉ rows committed
//	redelivery         success / a second identical delivery 3 s later
//	http429_pre        HTTP 429, Retry-After 30 s / not executed
//	conn_refused_pre   connection refused at once / not executed
//	stale_read         success / the read path hides the effect for 10 min
//
// Modes the paper's Table 2 groups together (the four timeouts; the two
// 500s; none and redelivery) give identical observations, latencies and
// resource ids until the hidden effect becomes visible on a read path:
// every call draws exactly one number from the world's stream whatever the
// mode, and ids derive from (seed, call, delivery), so hidden copies never
// shift what the agent sees.
//
// # Grading
//
// Grade (a ledger.Grader) derives the outcome columns of docs/ledger.md from the
// calls, the drained effects and the final report; see its documentation.
// CheckProposition1 and CheckProposition2 run the paper's propositions on
// the real mechanics (`limbo-analyze prove`).
package sandbox
