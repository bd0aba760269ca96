package proxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Check refuses a job that cannot run, with a *SetupError naming the
// job's fields (the episode's for One), and fills the single episode's
// defaults.
func TestJobCheck(t *testing.T) {
	ok := Job{Command: []string{"srv"}, StartTimeout: time.Second, CallTimeout: time.Second, LateDelay: time.Second,
		TailScale: 1, ReplayMiss: MissError, One: Episode{FaultMode: ledger.FaultNone}}
	for _, tc := range []struct {
		name string
		edit func(*Job)
		err  string
	}{
		{"defaults", func(*Job) {}, ""},
		{"replay miss", func(j *Job) { j.ReplayMiss = "skip" }, `proxy: ReplayMiss "skip": want error or live`},
		{"record and replay", func(j *Job) { j.Record, j.Replay = "a", "b" }, "proxy: Record and Replay exclude each other"},
		{"replay alone", func(j *Job) { j.Command, j.Replay = nil, "r.json" }, ""},
		{"live miss needs upstream", func(j *Job) { j.Command, j.Replay, j.ReplayMiss = nil, "r.json", MissLive }, "proxy: ReplayMiss live needs the upstream: its command after -- or URL URL"},
		{"no upstream", func(j *Job) { j.Command = nil }, "proxy: no upstream: give its command after -- or URL URL (or Replay FILE)"},
		{"two upstreams", func(j *Job) { j.URL = "http://127.0.0.1:1/" }, "proxy: URL and a command after -- exclude each other"},
		{"remote http", func(j *Job) { j.Addr = "8.8.8.8:80" }, "proxy: Addr 8.8.8.8:80 is not a loopback address; pass AllowRemote to bind it"},
		{"remote allowed", func(j *Job) { j.Addr, j.AllowRemote = "8.8.8.8:80", true }, ""},
		{"malformed http", func(j *Job) { j.Addr, j.AllowRemote = "localhost", true }, `proxy: Addr "localhost": the port is missing`},
		{"csv ledger", func(j *Job) { j.Ledger = "x.csv" }, "proxy: Ledger x.csv: the ledger is JSONL; name it .jsonl"},
		{"tail scale", func(j *Job) { j.TailScale = 0 }, "proxy: LateDelay and TailScale must be positive"},
		{"negative redelivery", func(j *Job) { j.RedeliveryDelay = -1 }, "proxy: LateDelay and TailScale must be positive, RedeliveryDelay not negative"},
		{"call timeout", func(j *Job) { j.CallTimeout = 0 }, "proxy: StartTimeout and CallTimeout must be positive"},
		{"guard", func(j *Job) { j.Guard = "all" }, `proxy: Guard "all": want keys or derived`},
		{"guard state", func(j *Job) { j.Guard = "keys" }, "proxy: Guard needs State FILE"},
		{"key ttl", func(j *Job) { j.KeyTTL = -time.Second }, "proxy: KeyTTL and VerifyAfter must not be negative"},
		{"fault needs tool", func(j *Job) { j.One.FaultMode = ledger.FaultTimeoutPre }, "proxy: tool: missing"},
		{"bad fault", func(j *Job) { j.One.FaultMode = "timeout_maybe" }, `proxy: fault_mode: "timeout_maybe": want one of`},
		{"plan skips the episode", func(j *Job) { j.PlanFile, j.One.FaultMode = "p.json", "timeout_maybe" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := ok
			tc.edit(&j)
			err := j.Check()
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			var se *SetupError
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.As(err, &se) {
				t.Errorf("Check() = %v, want a *SetupError %q", err, tc.err)
			}
		})
	}
	j := ok
	if err := j.Check(); err != nil || j.One.Model != DefaultLabel || j.One.Occurrence != 1 {
		t.Errorf("Check() = %v and One = %+v: want the defaults filled in", err, j.One)
	}
}
