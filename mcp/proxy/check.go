package proxy

import (
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Check validates a job before anything starts and fills the defaults of
// One when there is no plan; Run calls it. An error is a *SetupError
// naming the job's fields (internal/fieldtext), or for One the episode's
// (a *planjson.FieldError).
func (j *Job) Check() error {
	if err := j.check(); err != nil {
		return &SetupError{err}
	}
	return nil
}

func (j *Job) check() error {
	switch {
	case j.ReplayMiss != MissError && j.ReplayMiss != MissLive:
		return fieldtext.New("ReplayMiss", "{ReplayMiss} %q: want error or live", j.ReplayMiss)
	case j.Replay != "" && j.Record != "":
		return fieldtext.New("Record", "{Record} and {Replay} exclude each other")
	case j.Replay != "" && j.ReplayMiss == MissLive && len(j.Command) == 0 && j.URL == "":
		return fieldtext.New("ReplayMiss", "{ReplayMiss} live needs the upstream: its command after -- or {URL} URL")
	case j.Replay == "" && len(j.Command) == 0 && j.URL == "":
		return fieldtext.New("URL", "no upstream: give its command after -- or {URL} URL (or {Replay} FILE)")
	case len(j.Command) > 0 && j.URL != "":
		return fieldtext.New("URL", "{URL} and a command after -- exclude each other")
	case j.Addr != "" && localhttp.CheckListen(j.Addr, j.AllowRemote) != nil:
		return localhttp.CheckListen(j.Addr, j.AllowRemote)
	case j.Ledger != "" && !ledger.IsJSONLName(j.Ledger):
		return fieldtext.New("Ledger", "{Ledger} %s: the ledger is JSONL; name it .jsonl", j.Ledger)
	case !(j.TailScale > 0) || j.LateDelay <= 0 || j.RedeliveryDelay < 0:
		return fieldtext.New("LateDelay", "{LateDelay} and {TailScale} must be positive, {RedeliveryDelay} not negative")
	case j.StartTimeout <= 0 || j.CallTimeout <= 0:
		return fieldtext.New("StartTimeout", "{StartTimeout} and {CallTimeout} must be positive")
	case j.Guard != "" && j.Guard != "keys" && j.Guard != "derived":
		return fieldtext.New("Guard", "{Guard} %q: want keys or derived", j.Guard)
	case j.Guard != "" && j.State == "":
		return fieldtext.New("State", "{Guard} needs {State} FILE, the SQLite file that keeps its keys")
	case j.KeyTTL < 0 || j.VerifyAfter < 0:
		return fieldtext.New("KeyTTL", "{KeyTTL} and {VerifyAfter} must not be negative")
	}
	if j.PlanFile == "" && !j.PrintContract {
		return j.One.Normalize(j.Addr != "")
	}
	return nil
}
