// Package mcp serves the LIMBO sandbox to real agent harnesses over the
// Model Context Protocol (official Go SDK), one episode per MCP session.
//
// A Plan lists the episodes to serve (task template and instance, focal
// write, fault mode, contract, condition, guard, seed and the model and
// harness labels). Each session gets the next pending episode: its tools
// are the sandbox's tools under the episode's contract, with their
// descriptions and JSON schemas, plus a finish tool through which the
// agent reports its status and uncertainties. The task instruction is
// offered as a prompt, a resource and the server instructions; the
// initialize result's _meta "limbo/task" names the task ("T01#0"), as the
// resource's _meta does, for scripted clients.
//
// # Time
//
// The sandbox clock is virtual. Before each tool call the clock moves by
// a fixed think time; the call itself moves it by the tool's latency, or
// by the client timeout on a timeout, which is answered at once in wall
// time. Waiting is the wait tool. An episode is therefore deterministic
// for a given sequence of calls and seed, and a 90 s late commit costs no
// wall time.
//
// # Ledger
//
// When an episode ends (finish, disconnect, call budget or virtual-time
// budget) it is graded with the sandbox's grader and appended to the
// ledger as one JSON line, written with a single write to an O_APPEND
// file and synced before the finish call is answered; concurrent
// sessions share fsyncs (group commit). A restarted server reads the ledger, drops a torn last
// line, and skips the episodes already recorded.
package mcp
