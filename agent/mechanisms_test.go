package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
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

// share runs p on n worlds of instance 0 of tpl (focal write 0, fault
// mode, world keys prefix0, prefix1, ...) and returns the share of them in
// which hit holds. At n = 600 the binomial SE is at most 0.02, and the
// tests allow 4 SE.
func share(t *testing.T, p Params, n int, tpl, mode, prefix string, hit func(ledger.Episode, []ledger.Call) bool) float64 {
	t.Helper()
	k := 0
	for i := range n {
		if hit(runOne(t, p, tpl, 0, mode, 0, fmt.Sprint(prefix, i))) {
			k++
		}
	}
	return float64(k) / float64(n)
}

// called reports whether a run called tool.
func called(tool string) func(ledger.Episode, []ledger.Call) bool {
	return func(_ ledger.Episode, calls []ledger.Call) bool {
		for _, c := range calls {
			if c.Tool == tool {
				return true
			}
		}
		return false
	}
}

// duplicated reports whether a run duplicated an effect.
func duplicated(ep ledger.Episode, _ []ledger.Call) bool { return ep.Duplicated }

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
		p := careful()
		p.Mech.VerifyHalfLifeS = h
		return share(t, p, n, tpl, ledger.FaultTimeoutPost, "verify", called(readTool))
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
// model's careful propensities (mai-code verifies after a 500 with 0.12,
// aware 0.37) and leaves a model that always verifies at 1; it does not
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

// profileWith returns the embedded profile file with the mechanisms block's
// misleading_500 set to d (absent if d < 0) and the models replaced by ms.
func profileWith(t *testing.T, d float64, ms ...map[string]any) []byte {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(ProfilesJSON(), &f); err != nil {
		t.Fatal(err)
	}
	mech := f["mechanisms"].(map[string]any)
	delete(mech, "misleading_500")
	if d >= 0 {
		mech["misleading_500"] = d
	}
	models := make([]any, len(ms))
	for i, m := range ms {
		base := map[string]any{"name": fmt.Sprint("m", i), "v_to": 1.0, "w": 1.0, "s": 1.0, "pi": 0.5, "g": 0.0,
			"k_nat": 1.0, "k_ke": 1.0, "r": 1.0, "a": 0.0, "oracle": 1.0, "eps": 0.0}
		for k, v := range m {
			base[k] = v
		}
		models[i] = base
	}
	f["models"] = models
	js, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// Misleading500 derives v_500 from v_to: one logit contrast for every model
// that omits v_500, propensities of 0 and 1 unmoved; a model may give v_500
// itself only when the contrast is 0 (profile files written before it).
func TestMisleading500Decode(t *testing.T) {
	expit := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	for _, c := range []struct {
		name string
		d    float64
		m    map[string]any
		want float64
		err  string
	}{
		{"derived", 2, map[string]any{"v_to": 0.9}, expit(logit(0.9) - 2), ""},
		{"always verifies", 5.5, map[string]any{"v_to": 1.0}, 1, ""},
		{"never verifies", 5.5, map[string]any{"v_to": 0.0}, 0, ""},
		{"no contrast", 0, map[string]any{"v_to": 0.7}, 0.7, ""},
		{"absent block field", -1, map[string]any{"v_to": 0.7}, 0.7, ""},
		{"old file", -1, map[string]any{"v_to": 0.7, "v_500": 0.2}, 0.2, ""},
		{"both", 3, map[string]any{"v_to": 0.7, "v_500": 0.2}, 0, "models[0] (m0).v_500"},
		{"out of range", 25, map[string]any{"v_to": 0.7}, 0, "mechanisms.misleading_500"},
	} {
		p, err := DecodeProfiles(bytes.NewReader(profileWith(t, c.d, c.m)), "p.json")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "p.json: ") {
				t.Errorf("%s: error %v, want one naming p.json and %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := p.Models[0].V500; math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: v_500 = %v, want %v", c.name, got, c.want)
		}
	}
	// The embedded profile derives every model's v_500.
	prof := DefaultProfiles()
	if d := prof.Mechanisms.Misleading500; d <= 0 {
		t.Fatalf("embedded misleading_500 = %v, want a positive contrast", d)
	}
	for _, m := range prof.Models {
		if want := shiftLogit(m.VTo, -prof.Mechanisms.Misleading500); m.V500 != want {
			t.Errorf("%s: v_500 = %v, want %v from v_to %v", m.Name, m.V500, want, m.VTo)
		}
	}
}

// Misleading500 in isolation: over many worlds a model with v_to = 0.9
// reads back a deploy (strong read path, so no verification cost) after a
// lost acknowledgement in 90% of worlds and after a misleading 500 in
// expit(logit 0.9 − d) of them: d = logit 0.9 gives one half. With d = 0
// the two faults are read back alike.
func TestMisleading500(t *testing.T) {
	const n = 600
	for _, c := range []struct {
		d, wantTO, want500 float64
	}{
		{math.Log(9), 0.9, 0.5},
		{0, 0.9, 0.9},
	} {
		prof, err := DecodeProfiles(bytes.NewReader(profileWith(t, c.d, map[string]any{"v_to": 0.9, "pi": 0.0})), "p.json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := prof.Effective("m0", "minimal", "vanilla", ledger.CueDefault)
		if err != nil {
			t.Fatal(err)
		}
		rate := func(mode string) float64 {
			return share(t, p, n, "T11", mode, "m500-", called("deploy_list_runs"))
		}
		// Binomial SE at n = 600 is at most 0.02: allow 4 SE.
		if got := rate(ledger.FaultTimeoutPost); math.Abs(got-c.wantTO) > 0.08 {
			t.Errorf("d=%v: read back after a lost ack in %.3f of worlds, want %.2f", c.d, got, c.wantTO)
		}
		if got := rate(ledger.FaultHTTP500Post); math.Abs(got-c.want500) > 0.08 {
			t.Errorf("d=%v: read back after a misleading 500 in %.3f of worlds, want %.2f", c.d, got, c.want500)
		}
	}
}

// TimeoutWait in isolation: an agent that always reads back, with w = 0.5,
// on a mail write (120 s documented lag) whose original committed. Reading
// before the lag has passed it sees "absent", takes it as the truth and
// re-issues, so the duplicate rate is 1 − (the propensity to wait): after a
// misleading 500 1 − w whatever e, after a lost acknowledgement 1 −
// expit(logit(w) + e). On a strong path (deploy, no lag) nothing waits and
// nothing duplicates.
func TestTimeoutWait(t *testing.T) {
	const n = 600
	dupRate := func(tpl, mode string, e float64) float64 {
		p := careful()
		p.W = 0.5
		p.Mech.TimeoutWait = e
		return share(t, p, n, tpl, mode, "twait", duplicated)
	}
	for _, c := range []struct {
		tpl, mode string
		e, want   float64
	}{
		{"T07", ledger.FaultTimeoutPost, math.Log(9), 0.1},
		{"T07", ledger.FaultHTTP500Post, math.Log(9), 0.5},
		{"T07", ledger.FaultTimeoutPost, 0, 0.5},
		{"T07", ledger.FaultHTTP500Post, 0, 0.5},
		{"T11", ledger.FaultTimeoutPost, math.Log(9), 0},
		{"T11", ledger.FaultHTTP500Post, math.Log(9), 0},
	} {
		got := dupRate(c.tpl, c.mode, c.e)
		// Binomial SE at n = 600 is at most 0.02: allow 4 SE.
		if math.Abs(got-c.want) > 0.08 {
			t.Errorf("%s %s e=%.2f: duplicated in %.3f of worlds, want %.2f", c.tpl, c.mode, c.e, got, c.want)
		}
	}
}
