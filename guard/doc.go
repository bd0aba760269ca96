// Package guard is an exactly-once layer for tool calls: it decides, from the
// stored state of a call's key, whether to forward the call, wait for an
// original still in flight, replay a stored result, or refuse. The same code
// guards the simulated sandbox (over a MemoryStore in virtual time) and the
// deployed proxy (over a durable store in real time).
//
// # Decisions
//
// A Guard applies one Policy. Begin returns a Decision whose Outcome says
// what to do with the call; a Forward holds a Ticket that the caller ends
// with Finish once it knows how the execution ended (Succeeded, Failed,
// Lost, NotSent). An UnknownOutcome (an earlier execution whose result was
// never learned) is never replayed as a success: the caller verifies with a
// read-back and records what it found with Resolve. Time is always an
// argument (now), so a simulator passes its virtual clock and a proxy the
// wall clock; nothing here reads time.Now.
//
// # Policies
//
//   - None forwards everything.
//   - Keys guards calls that carry an agent-supplied idempotency key, as
//     Stripe's API and the IETF Idempotency-Key draft do.
//   - Derived keys calls by a hash of the tool and its canonical effect
//     arguments, with a time to live, as MCP gateways do.
//   - Ledger is a durable action ledger in the manner of CapLease's
//     issue–prepare–commit: authorisations are issued for a canonical
//     logical action and each is consumed once.
//   - Verify is the read-back guard: it remembers only calls whose outcome
//     was lost and answers a repeat of one with "verify first".
//
// docs/guard.md states each policy's guarantees and limits.
//
// # Fingerprints and canonical JSON
//
// A call's Fingerprint is a SHA-256 over the tool name and the canonical
// JSON of its effect arguments (an Effect: JSON pointers into the
// arguments, by default every argument but the key). Canonical JSON sorts
// object members by the bytes of their UTF-8 names, writes strings with the
// fewest escapes (RFC 8785's rules) and writes each number from its exact
// decimal value in the shape ECMAScript gives a number, so 1, 1.0, 10e-1
// and 1E0 are one number while a 30-digit identifier keeps every digit.
//
// # Storage
//
// A Store holds one Record per key and applies a read-modify-write of one
// key atomically (Update). MemoryStore is deterministic and in memory;
// package guard/sqlitestore is durable, committing each transition before
// Update returns and batching concurrent transitions into one transaction.
package guard
