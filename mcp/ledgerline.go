package mcp

import (
	"encoding/json"
	"time"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// EncodeLine renders the ledger line of an ended episode: the graded
// episode, or with raw the graded design and outcome fields together with
// the calls, effects and final report.
func EncodeLine(graded ledger.Episode, raw *ledger.RawEpisode, withRaw bool) ([]byte, error) {
	if withRaw && raw != nil {
		r := *raw
		r.Episode = graded
		return json.Marshal(&r)
	}
	return json.Marshal(&graded)
}

// encodeServedLine is EncodeLine with the served episode's factors that
// the ledger schema has no column for, as top-level fields: readers keep
// them as extra columns ("annotations": "true" or "false"), so analyses
// can filter and group by them.
func encodeServedLine(ep *Episode, graded ledger.Episode, raw *ledger.RawEpisode, withRaw bool) ([]byte, error) {
	line, err := EncodeLine(graded, raw, withRaw)
	if err != nil || len(line) < 2 || line[len(line)-1] != '}' {
		return line, err
	}
	extra := `,"annotations":false}`
	if ep.Annotations {
		extra = `,"annotations":true}`
	}
	return append(line[:len(line)-1], extra...), nil
}

// The served ledger file lives in package ledgerfile, which serve, drive
// and proxy share; these names keep mcp's API.
type (
	// Ledger is ledgerfile.Ledger.
	Ledger = ledgerfile.Ledger
	// Created is ledgerfile.Created.
	Created = ledgerfile.Created
)

var (
	// ErrRecorded is ledgerfile.ErrRecorded.
	ErrRecorded = ledgerfile.ErrRecorded
	// ErrLocked is ledgerfile.ErrLocked.
	ErrLocked = ledgerfile.ErrLocked
)

// OpenLedger is ledgerfile.Open.
func OpenLedger(path string, warn func(string)) (*Ledger, error) { return ledgerfile.Open(path, warn) }

// LockPath is ledgerfile.LockPath.
func LockPath(ledgerPath string) string { return ledgerfile.LockPath(ledgerPath) }

// CreatedPath is ledgerfile.CreatedPath.
func CreatedPath(ledgerPath string) string { return ledgerfile.CreatedPath(ledgerPath) }

// WriteCreated is ledgerfile.WriteCreated.
func WriteCreated(ledgerPath string, t time.Time) error {
	return ledgerfile.WriteCreated(ledgerPath, t)
}

// ReadCreated is ledgerfile.ReadCreated.
func ReadCreated(ledgerPath string) (time.Time, string, bool, error) {
	return ledgerfile.ReadCreated(ledgerPath)
}
