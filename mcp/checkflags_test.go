package mcp

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// CheckFlags names the first field of a single episode outside its set.
func TestEpisodeCheckFlags(t *testing.T) {
	ok := Episode{Template: "T03", FaultMode: ledger.FaultNone, Contract: ledger.ContractNative}
	tests := []struct {
		edit func(*Episode)
		err  string
	}{
		{func(*Episode) {}, ""},
		{func(e *Episode) { e.Template = "T99" }, `Template "T99": want one of T01, `},
		{func(e *Episode) { e.FaultMode = "timeout_maybe" }, `FaultMode "timeout_maybe": want one of none, `},
		{func(e *Episode) { e.Contract = "strict" }, `Contract "strict": want native or `},
	}
	for _, tt := range tests {
		e := ok
		tt.edit(&e)
		err := e.CheckFlags()
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)) {
			t.Errorf("%+v: CheckFlags() = %v, want %q", e, err, tt.err)
		}
	}
}
