package guard_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The guard suite: every policy in front of an honest upstream that
// really executes writes, under each fault family of the study, scored on
// duplicates (a logical charge executed more often than the task asked)
// and on suppressed work (executed less often). Nothing is scored by fiat:
// the counts are the upstream's own ledger of executed charges after the
// clock has run long enough for every late commit to land.
//
// The episode: a scripted agent performs a task's charges one after the
// other through a proxy that applies the guard. The agent waits 60 s for
// an answer; on a timeout, an error or a retryable refusal it waits 5 s
// and sends the same charge again (with the same idempotency key under the
// keys policy, its key for that charge), up to 8 times; on a refusal that
// is not retryable it gives up. The proxy gives the upstream 90 s; it
// answers a repeat in flight by waiting for the original (or refusing,
// under InFlightRefuse), and an unknown outcome by reading the upstream's
// charges back: the attempt executed if more charges of that customer and
// amount were executed since it was sent than the proxy knows of. It
// reports an upstream error as a definite failure only where the guard's
// row says so (errors definite); otherwise as an unknown outcome, since a
// 500 may follow a commit. The first write the proxy forwards meets the
// world's fault; the rest meet none. A logical charge (a customer and an
// amount) executed more often than the task wants is duplicated, less
// often suppressed: two identical monthly charges wanted and two executed
// is right, whichever call executed them.

// Virtual time: events run in time order (ties in the order scheduled).
type world struct {
	now    float64
	seq    int
	events []event
}

type event struct {
	at  float64
	seq int
	fn  func()
}

func (w *world) at(t float64, fn func()) {
	w.seq++
	e := event{t, w.seq, fn}
	i, _ := slices.BinarySearchFunc(w.events, e, func(a, b event) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
	w.events = slices.Insert(w.events, i, e)
}

// until runs the events due by t, then sets the clock to t; it stops
// early, at the event's time, once done reports true.
func (w *world) until(t float64, done func() bool) {
	for len(w.events) > 0 && w.events[0].at <= t && !done() {
		e := w.events[0]
		w.events = w.events[1:]
		w.now = e.at
		e.fn()
	}
	if !done() {
		w.now = t
	}
}

// charge is one executed charge in the upstream's ledger.
type charge struct {
	customer string
	amount   int
	at       float64
}

// upstream executes charges; with honourKeys it deduplicates an
// idempotency key at commit time, as Proposition 2's services do.
type upstream struct {
	w          *world
	honourKeys bool
	charges    []charge
	keyed      map[string]bool
}

func (u *upstream) execute(args map[string]any) {
	if k, _ := args["idempotency_key"].(string); u.honourKeys && k != "" {
		if u.keyed[k] {
			return
		}
		u.keyed[k] = true
	}
	u.charges = append(u.charges, charge{args["customer"].(string), args["amount_cents"].(int), u.w.now})
}

// executedSince is the read-back: how many charges of that customer and
// amount were executed at or after t.
func (u *upstream) executedSince(args map[string]any, t float64) int {
	n := 0
	for _, c := range u.charges {
		if c.customer == args["customer"] && c.amount == args["amount_cents"] && c.at >= t {
			n++
		}
	}
	return n
}

// answer is what the agent receives for one call.
type answer struct {
	done  bool
	kind  string // ok, error (retryable), fatal
	about string
}

func (a *answer) fill(kind, about string) {
	if !a.done {
		a.done, a.kind, a.about = true, kind, about
	}
}

// The worlds: the fault the first forwarded write meets.
var worlds = []string{"none", "timeout_pre", "http500_pre", "timeout_post", "http500_post", "timeout_late", "redelivery", "in_flight"}

const (
	agentTimeout    = 60.0
	upstreamTimeout = 90.0
	lateCommit      = 150.0 // after the send: beyond the agent's first retry
	slowAnswer      = 75.0  // in_flight: beyond the agent's timeout, within the proxy's
	inFlightBound   = 180 * time.Second
)

type proxy struct {
	w        *world
	up       *upstream
	g        *guard.Guard
	eff      guard.Effect
	fault    string
	definite bool // upstream errors are definite failures
	forwards int
	waiters  map[string][]func(guard.End)
	known    map[int][]float64 // by amount: when attempts the proxy knows executed were sent
}

func (p *proxy) call(args map[string]any) guard.Call {
	fp, err := p.eff.Fingerprint("charge", args)
	if err != nil {
		panic(err)
	}
	k, _ := args["idempotency_key"].(string)
	return guard.Call{Tool: "charge", Fingerprint: fp, Key: k}
}

// handle decides a call; ans is filled when the proxy answers.
func (p *proxy) handle(args map[string]any, ans *answer) {
	c := p.call(args)
	d, err := p.g.Begin(context.Background(), c, guardtest.At(p.w.now))
	if err != nil {
		panic(err)
	}
	p.act(args, c, d, ans)
}

func (p *proxy) act(args map[string]any, c guard.Call, d guard.Decision, ans *answer) {
	switch d.Outcome {
	case guard.Forward:
		p.forward(args, d.Ticket, ans)
	case guard.Wait:
		// The original's success is this call's answer; any other end,
		// and the call is decided again.
		p.waiters[d.Key] = append(p.waiters[d.Key], func(end guard.End) {
			if end == guard.Succeeded {
				ans.fill("ok", "the original's answer")
				return
			}
			p.handle(args, ans)
		})
	case guard.RefuseInFlight, guard.AtCapacity:
		ans.fill("error", d.Outcome.String())
	case guard.Replay, guard.Consumed:
		ans.fill("ok", d.Outcome.String())
	case guard.ReplayError:
		ans.fill("error", "replayed "+string(d.Result))
	case guard.Conflict, guard.Unauthorised:
		ans.fill("fatal", d.Outcome.String())
	case guard.UnknownOutcome:
		since := seconds(d.Since)
		known := 0
		for _, t := range p.known[args["amount_cents"].(int)] {
			if t >= since {
				known++
			}
		}
		executed := p.up.executedSince(args, since) > known
		next, err := p.g.Resolve(context.Background(), c, executed, []byte("verified"), guardtest.At(p.w.now))
		switch {
		case errors.Is(err, guard.ErrTooEarly):
			p.w.at(seconds(d.VerifyAt), func() { p.handle(args, ans) })
		case errors.Is(err, guard.ErrNotUnknown): // settled meanwhile
			p.handle(args, ans)
		case err != nil:
			panic(err)
		default:
			if executed {
				p.known[args["amount_cents"].(int)] = append(p.known[args["amount_cents"].(int)], since)
			}
			p.act(args, c, next, ans)
		}
	default:
		panic(d.Outcome)
	}
}

func seconds(t time.Time) float64 { return t.Sub(guardtest.At(0)).Seconds() }

// forward sends the call upstream; the first forward meets the fault.
func (p *proxy) forward(args map[string]any, t guard.Ticket, ans *answer) {
	p.forwards++
	mode := "none"
	if p.forwards == 1 {
		mode = p.fault
	}
	sent := p.w.now
	end := func(after float64, e guard.End, kind, about string) {
		if e == guard.Failed && !p.definite {
			e = guard.Lost
		}
		p.w.at(p.w.now+after, func() {
			if err := p.g.Finish(context.Background(), t, e, []byte(about), guardtest.At(p.w.now)); err != nil {
				panic(err)
			}
			if e == guard.Succeeded {
				p.known[args["amount_cents"].(int)] = append(p.known[args["amount_cents"].(int)], sent)
			}
			ans.fill(kind, about)
			ws := p.waiters[t.Key()]
			delete(p.waiters, t.Key())
			for _, w := range ws {
				w(e)
			}
		})
	}
	exec := func(after float64) { p.w.at(p.w.now+after, func() { p.up.execute(args) }) }
	switch mode {
	case "none":
		exec(1)
		end(1, guard.Succeeded, "ok", "charged")
	case "timeout_pre": // lost on the way: never executed
		end(upstreamTimeout, guard.Lost, "error", "timeout")
	case "http500_pre": // refused before the commit
		end(1, guard.Failed, "error", "500")
	case "timeout_post": // executed, the answer lost
		exec(1)
		end(upstreamTimeout, guard.Lost, "error", "timeout")
	case "http500_post": // executed, answered with an error
		exec(1)
		end(1, guard.Failed, "error", "500")
	case "timeout_late": // the upstream times out itself and commits later
		end(30, guard.Lost, "error", "timeout")
		exec(lateCommit)
	case "redelivery": // the transport delivers it twice
		exec(1)
		exec(2)
		end(2, guard.Succeeded, "ok", "charged")
	case "in_flight": // slow: answered after the agent gave up
		exec(slowAnswer)
		end(slowAnswer, guard.Succeeded, "ok", "charged")
	default:
		panic(mode)
	}
}

// suiteConfig is one guard of the suite.
type suiteConfig struct {
	name       string
	cfg        guard.Config
	pointers   []string // the effect; nil: every argument but the key
	honourKeys bool     // the upstream deduplicates idempotency keys
	definite   bool     // the proxy takes an upstream error as a definite failure
}

var suiteConfigs = []suiteConfig{
	{name: "none", cfg: guard.Config{Policy: guard.None}},
	{name: "keys", cfg: guard.Config{Policy: guard.Keys}},
	{name: "keys, refuse in flight", cfg: guard.Config{Policy: guard.Keys, InFlight: guard.InFlightRefuse}},
	{name: "keys, errors definite", cfg: guard.Config{Policy: guard.Keys}, definite: true},
	{name: "keys, cached errors", cfg: guard.Config{Policy: guard.Keys, CacheErrors: true}, definite: true},
	{name: "keys, target", cfg: guard.Config{Policy: guard.Keys}, pointers: []string{"/customer", "/amount_cents"}},
	{name: "keys, bound 180 s", cfg: guard.Config{Policy: guard.Keys, VerifyAfter: inFlightBound}},
	{name: "keys, upstream keys", cfg: guard.Config{Policy: guard.Keys, ReforwardUnknown: true}, honourKeys: true},
	{name: "derived 1 h", cfg: guard.Config{Policy: guard.Derived, TTL: time.Hour}},
	{name: "derived 1 h, target", cfg: guard.Config{Policy: guard.Derived, TTL: time.Hour}, pointers: []string{"/customer", "/amount_cents"}},
	{name: "ledger", cfg: guard.Config{Policy: guard.Ledger}},
	{name: "ledger, bound 180 s", cfg: guard.Config{Policy: guard.Ledger, VerifyAfter: inFlightBound}},
	{name: "ledger, bound, target", cfg: guard.Config{Policy: guard.Ledger, VerifyAfter: inFlightBound}, pointers: []string{"/customer", "/amount_cents"}},
	{name: "verify", cfg: guard.Config{Policy: guard.Verify}},
	{name: "verify, bound 180 s", cfg: guard.Config{Policy: guard.Verify, VerifyAfter: inFlightBound}},
}

// The tasks: the charges the user wants, in order.
var suiteTasks = []struct {
	name    string
	charges []int // amounts in cents, all for customer c1
}{
	{"one", []int{1000}},
	{"repeat", []int{1000, 1000}}, // a legitimate identical repeat: two monthly charges
	{"other", []int{1000, 2000}},  // a legitimate second charge with other arguments
}

// The agents: one retries with the same arguments; the other
// re-synthesises them (rewords the memo), as re-planning agents do.
var suiteAgents = []string{"same", "resynth"}

type score struct{ dup, supp int }

func (s score) String() string { return fmt.Sprintf("%d/%d", s.dup, s.supp) }

// episode runs one task in one world under one guard and scores it.
func episode(t *testing.T, sc suiteConfig, fault, task string, amounts []int, agent string) score {
	t.Helper()
	w := &world{}
	up := &upstream{w: w, honourKeys: sc.honourKeys, keyed: map[string]bool{}}
	eff, err := guard.NewEffect(sc.pointers, "idempotency_key")
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(sc.cfg, guard.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{w: w, up: up, g: g, eff: eff, fault: fault, definite: sc.definite, waiters: map[string][]func(guard.End){}, known: map[int][]float64{}}
	argsFor := func(i, attempt int) map[string]any {
		memo := "monthly charge"
		if agent == "resynth" && attempt > 0 {
			memo = fmt.Sprintf("monthly charge (retry %d)", attempt)
		}
		args := map[string]any{"customer": "c1", "amount_cents": amounts[i], "memo": memo}
		if sc.cfg.Policy == guard.Keys {
			args["idempotency_key"] = fmt.Sprintf("%s-%d", task, i)
		}
		return args
	}
	// The user's confirmation issues one authorisation per wanted charge.
	if sc.cfg.Policy == guard.Ledger {
		for i := range amounts {
			if err := g.Issue(context.Background(), p.call(argsFor(i, 0)), 1, guardtest.At(0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range amounts {
		if i > 0 {
			w.until(w.now+600, func() bool { return false }) // the next month, in the suite's time
		}
	charging:
		for attempt := range 8 {
			ans := &answer{}
			p.handle(argsFor(i, attempt), ans)
			w.until(w.now+agentTimeout, func() bool { return ans.done })
			switch {
			case ans.done && ans.kind == "ok":
				break charging
			case ans.done && ans.kind == "fatal":
				break charging
			}
			w.until(w.now+5, func() bool { return false })
		}
	}
	w.until(w.now+4*3600, func() bool { return false }) // every late commit lands
	// A logical charge is a customer and an amount: executed more often
	// than the task wants it is duplicated, less often suppressed.
	var s score
	for _, amount := range []int{1000, 2000} {
		want, got := 0, 0
		for _, a := range amounts {
			if a == amount {
				want++
			}
		}
		for _, c := range up.charges {
			if c.amount == amount {
				got++
			}
		}
		if got > want {
			s.dup += got - want
		} else {
			s.supp += want - got
		}
	}
	return s
}

func TestGuardSuite(t *testing.T) {
	var out strings.Builder
	fmt.Fprintf(&out, "duplicates/suppressed charges per episode (guard suite, guard/suite_test.go)\n\n%-24s %-8s %-8s", "guard", "task", "agent")
	for _, w := range worlds {
		fmt.Fprintf(&out, " %13s", w)
	}
	out.WriteString("\n")
	cells := map[[4]string]score{}
	for _, sc := range suiteConfigs {
		for _, task := range suiteTasks {
			for _, agent := range suiteAgents {
				fmt.Fprintf(&out, "%-24s %-8s %-8s", sc.name, task.name, agent)
				for _, w := range worlds {
					s := episode(t, sc, w, task.name, task.charges, agent)
					cells[[4]string{sc.name, task.name, agent, w}] = s
					fmt.Fprintf(&out, " %13s", s)
				}
				out.WriteString("\n")
			}
		}
	}
	summary := suiteSummary(cells)
	out.WriteString("\n" + summary)
	testfile.CheckGolden(t, "../testdata/guard/suite.txt", []byte(out.String()), *update)
	doc, err := os.ReadFile("../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), summary) {
		t.Errorf("docs/guard.md does not hold the suite's summary table:\n%s", summary)
	}

	// The findings the golden holds, each checked from the cells.
	cell := func(g, task, agent, w string) score { return cells[[4]string{g, task, agent, w}] }
	family := map[string][]string{
		"pre-commit":  {"timeout_pre", "http500_pre"},
		"post-commit": {"timeout_post", "http500_post"},
		"late commit": {"timeout_late"},
		"redelivery":  {"redelivery"},
		"in-flight":   {"in_flight"},
	}
	sum := func(g, agent string, ws []string, tasks ...string) score {
		var s score
		for _, task := range tasks {
			for _, w := range ws {
				c := cell(g, task, agent, w)
				s.dup += c.dup
				s.supp += c.supp
			}
		}
		return s
	}
	all := []string{"one", "repeat", "other"}
	check := func(what string, got, want score) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %s duplicated/suppressed, want %s", what, got, want)
		}
	}
	// No guard: a blind retry duplicates whenever the first write executed.
	check("none, pre-commit", sum("none", "same", family["pre-commit"], "one"), score{0, 0})
	check("none, post-commit", sum("none", "same", family["post-commit"], "one"), score{2, 0})
	check("none, late", sum("none", "same", family["late commit"], "one"), score{1, 0})
	check("none, in flight", sum("none", "same", family["in-flight"], "one"), score{1, 0})
	// Redelivery happens behind any guard in front of the upstream; only
	// the upstream's own keys absorb it.
	for _, sc := range suiteConfigs {
		want := score{1, 0}
		if sc.honourKeys {
			want = score{}
		}
		check(sc.name+", redelivery", sum(sc.name, "same", family["redelivery"], "one"), want)
	}
	// Client keys: no duplicate from a lost answer or a retry in flight, and
	// nothing suppressed ...
	for _, f := range []string{"pre-commit", "post-commit", "in-flight"} {
		check("keys, "+f, sum("keys", "same", family[f], all...), score{})
		check("keys refusing, "+f, sum("keys, refuse in flight", "same", family[f], all...), score{})
	}
	// ... but a read-back before a late commit lands finds nothing, and the
	// proxy forwards again (Proposition 1); with the in-flight bound it
	// waits, and with keys the upstream honours it is exactly once
	// (Proposition 2).
	check("keys, late", sum("keys", "same", family["late commit"], "one"), score{1, 0})
	check("keys with a bound, late", sum("keys, bound 180 s", "same", family["late commit"], all...), score{})
	check("upstream keys, late", sum("keys, upstream keys", "same", family["late commit"], all...), score{})
	// Cached errors replay a pre-commit 500: the work is lost.
	check("cached errors, 500 before the commit", sum("keys, cached errors", "same", []string{"http500_pre"}, "one"), score{0, 1})
	check("cached errors, 500 after the commit", sum("keys, cached errors", "same", []string{"http500_post"}, "one"), score{0, 0})
	// Derived keys suppress the legitimate identical repeat (in the late
	// and redelivery worlds the first charge's duplicate makes up the
	// count), and miss re-synthesised retries unless the effect is the
	// charge's target.
	for _, w := range []string{"none", "timeout_pre", "http500_pre", "timeout_post", "http500_post", "in_flight"} {
		if s := cell("derived 1 h", "repeat", "same", w); s.supp == 0 {
			t.Errorf("derived keys, %s: the identical repeat was not suppressed (%s)", w, s)
		}
	}
	check("derived, post-commit, re-synthesised", sum("derived 1 h", "resynth", family["post-commit"], "one"), score{2, 0})
	check("derived on the target, post-commit, re-synthesised", sum("derived 1 h, target", "resynth", family["post-commit"], "one"), score{0, 0})
	// The action ledger with the bound: no duplicate but redelivery, and no
	// legitimate repeat suppressed; re-synthesised arguments it has not
	// authorised are refused (work lost before the commit) unless the
	// action is the charge's target.
	for _, f := range []string{"pre-commit", "post-commit", "late commit", "in-flight"} {
		check("ledger, "+f, sum("ledger, bound 180 s", "same", family[f], all...), score{})
		check("ledger on the target, "+f, sum("ledger, bound, target", "resynth", family[f], all...), score{})
	}
	check("ledger, no fault", sum("ledger, bound 180 s", "same", []string{"none"}, all...), score{})
	check("ledger, late, no bound", sum("ledger", "same", family["late commit"], "one"), score{1, 0})
	check("ledger, pre-commit, re-synthesised", sum("ledger, bound 180 s", "resynth", family["pre-commit"], "one"), score{0, 2})
	// No guard suppresses a legitimate second charge with other arguments.
	for _, sc := range suiteConfigs {
		if s := sum(sc.name, "same", []string{"none"}, "other"); s.supp != 0 {
			t.Errorf("%s: a second charge with other arguments was suppressed (%s)", sc.name, s)
		}
	}
}

// suiteFamilies groups the worlds by fault family, as the summary shows
// them.
var suiteFamilies = []struct {
	name   string
	worlds []string
}{
	{"no fault", []string{"none"}},
	{"pre-commit", []string{"timeout_pre", "http500_pre"}},
	{"post-commit", []string{"timeout_post", "http500_post"}},
	{"late commit", []string{"timeout_late"}},
	{"redelivery", []string{"redelivery"}},
	{"in-flight retry", []string{"in_flight"}},
}

// suiteSummary is the Markdown table of docs/guard.md: per guard and
// fault family, duplicated/suppressed charges over the three tasks with
// the agent that retries with the same arguments, and over every world
// with the agent that re-synthesises them.
func suiteSummary(cells map[[4]string]score) string {
	var b strings.Builder
	b.WriteString("| guard |")
	for _, f := range suiteFamilies {
		b.WriteString(" " + f.name + " |")
	}
	b.WriteString(" re-synthesised retries |\n|---|")
	for range suiteFamilies {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, sc := range suiteConfigs {
		b.WriteString("| " + sc.name + " |")
		for _, f := range suiteFamilies {
			var s score
			for _, task := range suiteTasks {
				for _, w := range f.worlds {
					c := cells[[4]string{sc.name, task.name, "same", w}]
					s.dup += c.dup
					s.supp += c.supp
				}
			}
			b.WriteString(" " + s.String() + " |")
		}
		var r score
		for _, task := range suiteTasks {
			for _, w := range worlds {
				c := cells[[4]string{sc.name, task.name, "resynth", w}]
				r.dup += c.dup
				r.supp += c.supp
			}
		}
		b.WriteString(" " + r.String() + " |\n")
	}
	return b.String()
}
