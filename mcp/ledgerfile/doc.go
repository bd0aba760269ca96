// Package ledgerfile is the append-only JSONL episode ledger that serve,
// drive and proxy record episodes in: every line is written with one
// write(2) to an O_APPEND file and synced before the episode counts as
// recorded (concurrent appends share fsyncs), so a crash leaves at most a
// torn last line, which Open removes; the file is locked by one process at
// a time, and a ledger the run created gets a creation sidecar
// (LEDGER.created.json) with the run's start.
package ledgerfile
