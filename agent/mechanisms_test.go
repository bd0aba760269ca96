package agent

import (
	"fmt"
	"math"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// careful is a profile that always verifies, waits out the documented lag,
// trusts a positive read-back, never gives up and always waits to re-check
// an empty read, so only the mechanism under test moves its behaviour.
func careful() Params {
	return Params{VTo: 1, V500: 1, W: 1, S: 1, Pi: 0, G: 0, KNat: 1, KKe: 1, R: 1, Orc: 1, Compl: 1, Quiet: 1}
}

// runOne runs a vanilla agent with p on instance 0 of tpl with the focal
// write and fault given, and returns the graded episode and the calls.
func runOne(t *testing.T, p Params, tpl string, focal int, mode string, delay float64, worldKey string) (ledger.Episode, []ledger.Call) {
	t.Helper()
	w := world(t, tpl, focal, mode, ledger.ContractNative, delay)
	c, _ := ParseCondition("vanilla")
	rep := New(p, DefaultProfiles().Time, c, NewDraws(5, worldKey, "ep", 0)).Run(w, w.Task(), w.Tools())
	calls := w.Calls()
	ep, err := sandbox.Grade(w.Finish(rep))
	if err != nil {
		t.Fatal(err)
	}
	return ep, calls
}

// EventualTrust in isolation: under a 90 s late commit an agent that waited
// out mail's documented 120 s lag reads "absent"; believing it (trust 1) it
// re-issues at once and duplicates, while without the mechanism it waits,
// re-checks, sees the late original and skips. A strong read path (deploy,
// no documented lag) is not affected, and a not-executed world completes
// exactly once either way.
func TestEventualTrust(t *testing.T) {
	for _, c := range []struct {
		tpl   string
		mode  string
		trust float64
		dup   bool
	}{
		{"T07", ledger.FaultTimeoutLate, 0, false},
		{"T07", ledger.FaultTimeoutLate, 1, true},
		{"T11", ledger.FaultTimeoutLate, 1, false},
		{"T07", ledger.FaultTimeoutPre, 1, false},
	} {
		p := careful()
		p.Mech.EventualTrust = c.trust
		ep, _ := runOne(t, p, c.tpl, 0, c.mode, 90, "trust")
		if ep.Duplicated != c.dup || !ep.TaskSuccess {
			t.Errorf("%s %s trust=%v: duplicated %v, task success %v; want duplicated %v and success",
				c.tpl, c.mode, c.trust, ep.Duplicated, ep.TaskSuccess, c.dup)
		}
	}
}

// VerifyHalfLifeS in isolation: over many worlds an always-verifying agent
// still reads back every strong-path write (deploy), but reads back an
// eventual one (mail, 120 s lag) with probability 2^(−120/h); with h = 0
// it always does.
func TestVerifyCost(t *testing.T) {
	const n = 600
	readRate := func(tpl, readTool string, h float64) float64 {
		k := 0
		for i := range n {
			p := careful()
			p.Mech.VerifyHalfLifeS = h
			_, calls := runOne(t, p, tpl, 0, ledger.FaultTimeoutPost, 0, fmt.Sprint("verify", i))
			for _, c := range calls {
				if c.Tool == readTool {
					k++
					break
				}
			}
		}
		return float64(k) / n
	}
	for _, c := range []struct {
		tpl, read string
		h, want   float64
	}{
		{"T07", "mail_search_sent", 0, 1},
		{"T07", "mail_search_sent", 120, 0.5},
		{"T07", "mail_search_sent", 240, math.Sqrt(0.5)},
		{"T11", "deploy_list_runs", 120, 1},
	} {
		got := readRate(c.tpl, c.read, c.h)
		// Binomial SE at n = 600 is at most 0.02: allow 4 SE.
		if math.Abs(got-c.want) > 0.08 {
			t.Errorf("%s h=%v: read back in %.3f of worlds, want %.3f", c.tpl, c.h, got, c.want)
		}
	}
}

// Care in isolation: the aware prompt's one logit shift raises an uncertain
// model's careful propensities (mai-code verifies after a 500 with 0.20,
// aware 0.53) and leaves a model that always verifies at 1; it does not
// touch hasty propensities or keys, and other conditions are unchanged.
func TestCare(t *testing.T) {
	prof := DefaultProfiles()
	d := prof.Care["aware"]
	if d <= 0 {
		t.Fatalf("care.aware = %v, want a positive shift in the embedded profiles", d)
	}
	expit := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	for _, c := range []struct {
		model string
	}{{"mai-code-1.1-flash"}, {"gemini-3.8-flash"}, {"gpt-6-astra"}} {
		van, err := prof.Effective(c.model, "minimal", "vanilla", ledger.CueDefault)
		if err != nil {
			t.Fatal(err)
		}
		aw, err := prof.Effective(c.model, "minimal", "aware", ledger.CueDefault)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name     string
			van, got float64
		}{{"v_to", van.VTo, aw.VTo}, {"v_500", van.V500, aw.V500}, {"w", van.W, aw.W}, {"s", van.S, aw.S}} {
			want := f.van
			if f.van > 0 && f.van < 1 {
				want = expit(logit(f.van) + d)
			}
			if math.Abs(f.got-want) > 1e-12 {
				t.Errorf("%s aware %s = %v, want %v (vanilla %v)", c.model, f.name, f.got, want, f.van)
			}
		}
		if aw.Pi != van.Pi || aw.G != van.G || aw.KNat != van.KNat || aw.R != van.R {
			t.Errorf("%s: aware moved a hasty propensity or a key habit: %+v vs %+v", c.model, aw, van)
		}
		rf, _ := prof.Effective(c.model, "minimal", "reflect", ledger.CueDefault)
		if rf != van {
			t.Errorf("%s: reflect differs from vanilla: %+v vs %+v", c.model, rf, van)
		}
	}
	if p := (Params{V500: 0.2}).Care(0); p.V500 != 0.2 {
		t.Errorf("Care(0) moved v_500 to %v", p.V500)
	}
}
