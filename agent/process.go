package agent

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// The agent's process, modelled (docs/simulation.md, Agent-side faults).
// A harness runs the agent as a process whose steps it journals: a step's
// result is written to the run's journal when the step is done, and a
// process that dies is restarted from the journal's last checkpoint. The
// agent-side faults (ledger.AgentFaults) strike the focal write, whatever
// the service does to it, and what is sent again follows from the
// process model, never from a draw of the outcome:
//
//	crash_resume  the process dies after the focal write was sent; before_journal: as it awaits
//	              the answer, so the step's result is never journaled and the resumed process
//	              sends the write again, with the journaled arguments; after_journal: in the
//	              model turn after the step was journaled, so the resumed process goes on from
//	              the next step
//	run_retry     a later step fails once the focal step is journaled, and the harness retries
//	              the whole run from the start, as a new run that writes every step anew
//	replan        a failure after the focal step makes the agent re-plan: it issues the focal
//	              write again, written anew, and goes on
//	delegate      once the focal write is answered the task is handed to a sub-agent, a new run
//	              that does not see the parent's history and writes the focal step and the
//	              rest anew
//	concurrent    two workers run the whole task, the second starting a few seconds after the
//	              first and writing every step anew; both go through the same guard
//
// A write written anew follows the perturbation model (perturb.go): its
// second synthesis repeats the first exactly or not, by a draw of the
// world's. Client keys are the harness's step keys (run, plan, step): a
// resumed process keeps its run's, a new run has its own.

// Replay is the agent-side design of one episode.
type Replay struct {
	Fault  string // ledger.AgentFault*
	Window string // crash_resume: ledger.WindowBeforeJournal or WindowAfterJournal
	Guard  string // ledger.Guard*
	// Focal is the index of the step the fault strikes: the world's focal
	// write. It is the experimenter's, as the service fault is; the agent
	// never sees it.
	Focal   int
	Perturb Perturbation
	// A dead process (or a failed run) is started again RestartMinS to
	// RestartMaxS after it stopped (the harness's heartbeat timeout and
	// restart), uniform.
	RestartMinS, RestartMaxS float64
	// The second worker picks the task up SecondMinS to SecondMaxS after
	// the first, uniform.
	SecondMinS, SecondMaxS float64
	// The guards' settings (ledger.GuardArms): derived keys' and client
	// keys' TTL, and the action ledger's bound on in-flight time.
	DerivedTTLS, KeysTTLS, InFlightBoundS float64
	// Seed and World key the draws of the agent-side mechanics (the crash
	// point, the restart, the second worker's start, each re-synthesis):
	// the run seed and the world's pair key, so that every guard and every
	// agent fault of one world share them.
	Seed  uint64
	World string
	// Other are the behavioural draws of the episode's other agent: the
	// sub-agent (delegate) or the second worker (concurrent).
	Other *Draws

	// observe, if set, is told each decision of a proxy's guard (tests).
	observe func(proxyEvent)
}

// Slots of the agent-side world vector, drawn in this order.
const (
	rslotCrash   = iota // where in its window the process dies
	rslotRestart        // how long until it is started again
	rslotSecond         // when the second worker starts
	nRSlots
)

// orchestrator is the harness of one episode.
type orchestrator struct {
	r     Replay
	world *sandbox.World
	task  *sandbox.Task
	tools []sandbox.ToolSpec
	p     Params
	t     Timing
	cond  Condition
	d     *Draws

	front Caller   // what the agents call: the guard in front of base
	sched *workers // two workers at once (concurrent); nil otherwise
	u     [nRSlots]float64

	cur    *Agent // the agent running (one at a time but under concurrent)
	fired  bool   // the fault has struck
	diedAt float64

	// The run's journal: the last step journaled and, per step, its
	// receipt and arguments (what a hand-off needs; nil for a task
	// without hand-offs).
	journal  int
	receipts []string
	lastArgs []map[string]any
	// synth counts each step's syntheses across processes, runs and
	// workers: the first is the task's arguments, a later one may differ.
	synth []int

	// Storage of an episode's small parts, allocated with it: the
	// processes and their agents (two at most: a first and a resumed,
	// retried, delegated or second one), the synthesis counts of a task
	// of up to eight steps, and the stream of a re-synthesis, seeded
	// afresh for each.
	procs   [2]process
	agents  [2]Agent
	nprocs  int
	synthN  [8]int
	resynth rand.PCG
}

// process is one process of a run: its run identity and plan, and whether
// it writes anew the steps it sends (otherwise it sends the journaled or
// the task's arguments).
type process struct {
	o       *orchestrator
	run     int
	plan    int
	resynth bool
}

// stopProcess ends a process where it stands: its death, or its hand-over
// of the task. The orchestrator recovers it; no other panic is recovered.
type stopProcess struct{ why string }

// agentMechanics are the agent-side faults' mechanics, keyed by the
// catalogue's name; a fault without one cannot be simulated.
var agentMechanics = map[string]func(o *orchestrator) ledger.FinalReport{
	ledger.AgentFaultNone:        runOnce,
	ledger.AgentFaultCrashResume: crashAndResume,
	ledger.AgentFaultRunRetry:    retryRun,
	ledger.AgentFaultReplan:      runOnce, // the re-plan is the process's own (process.journaled)
	ledger.AgentFaultDelegate:    delegate,
	ledger.AgentFaultConcurrent:  twoWorkers,
}

// CheckReplay reports whether r can be simulated: a known agent fault
// with mechanics, a window exactly when the fault has windows, a known
// guard, and the other agent's draws where the fault has one.
func CheckReplay(r Replay) error {
	f, ok := ledger.AgentFaultByName(r.Fault)
	if !ok || agentMechanics[r.Fault] == nil {
		return fmt.Errorf("agent fault %q: no mechanics (want one of %v)", r.Fault, ledger.AgentFaultNames.Values)
	}
	if len(f.Windows) > 0 != (r.Window != "") || r.Window != "" && !ledger.CrashWindows.Has(r.Window) {
		return fmt.Errorf("agent fault %s: crash window %q (want one of %v for crash_resume, none otherwise)", r.Fault, r.Window, f.Windows)
	}
	if !ledger.GuardNames.Has(r.Guard) {
		return fmt.Errorf("guard %q: want one of %v", r.Guard, ledger.GuardNames.Values)
	}
	if (r.Fault == ledger.AgentFaultDelegate || r.Fault == ledger.AgentFaultConcurrent) && r.Other == nil {
		return fmt.Errorf("agent fault %s needs the other agent's draws", r.Fault)
	}
	return nil
}

// RunReplay plays one episode of the agent-side design in world: the
// agent (propensities p, timing t, condition cond, draws d) performs task
// under the fault r.Fault, through the guard r.Guard, and the final report
// is returned (under concurrent, the first worker's; after a crash or a
// hand-over, that of the process that finished the task).
func RunReplay(world *sandbox.World, tools []sandbox.ToolSpec, contract string, p Params, t Timing, cond Condition, d *Draws, r Replay) (ledger.FinalReport, error) {
	if err := CheckReplay(r); err != nil {
		return ledger.FinalReport{}, err
	}
	task := world.Task()
	st := episodes.Get().(*episodeState)
	o := &st.o
	*o = orchestrator{r: r, world: world, task: task, tools: tools, p: p, t: t, cond: cond, d: d, journal: -1}
	if n := len(task.Steps); n > len(o.synthN) {
		o.synth = make([]int, n)
	} else {
		o.synth = o.synthN[:n]
	}
	if handoffs(task) {
		o.receipts = make([]string, len(task.Steps))
		o.lastArgs = make([]map[string]any, len(task.Steps))
	}
	u := rand.NewPCG(r.Seed, hashMore(Hash64(r.World), "/agent-side"))
	for i := range o.u {
		o.u[i] = float64(u.Uint64()<<11>>11) / (1 << 53) // rand.Rand's Float64
	}
	var base Caller = world
	if r.Fault == ledger.AgentFaultConcurrent {
		st.sched = workers{world: world}
		o.sched = &st.sched
		base = o.sched
	}
	switch r.Guard {
	case ledger.GuardNone:
		o.front = base
	case ledger.GuardPaper:
		g := NewGuard(base, task.ID, contract)
		g.Answered = func(tool string, args map[string]any) { world.Answered(tool, args, ledger.OutcomeGuardReplay) }
		o.front = g
	default:
		px := &st.px
		if err := px.init(r.Guard, &o.r, base, world, task, contract, o.stepKey, &st.guard, &st.store); err != nil {
			return ledger.FinalReport{}, err
		}
		px.sched, px.observe = o.sched, r.observe
		o.front = px
	}
	// A condition's middleware is the agent's own (a client library that
	// retries), so it sits on the agent's side of the guard.
	o.front = cond.Wrap(o.front, task.ID, contract)
	rep := agentMechanics[r.Fault](o)
	episodes.Put(st)
	return rep, nil
}

// episodeState is the storage of one agent-side episode: its harness, the
// guard's proxy, the guard and its store, and the workers' schedule. A
// design simulates tens of thousands of episodes, so a finished episode's
// storage serves the next one (episodes) instead of being allocated afresh
// and collected. Each part is set afresh before an episode uses it
// (orchestrator, proxy.init, Guard.Reset, MemoryStore.Reset, workers), so
// nothing of one episode reaches the next; what a pooled state still
// points to until then is freed with it at a garbage collection. (An
// episode that panics does not return its storage.)
type episodeState struct {
	o     orchestrator
	px    proxy
	guard guard.Guard
	store guard.MemoryStore
	sched workers
}

var episodes = sync.Pool{New: func() any { return new(episodeState) }}

// stepKey is the harness's key of the step the running agent writes.
func (o *orchestrator) stepKey() string {
	a := o.cur
	if o.sched != nil && o.sched.cur != nil {
		a = o.sched.cur.agent
	}
	if a == nil || a.proc == nil {
		return ""
	}
	if r, pl, st := a.proc.run, a.proc.plan, a.cur; r < len(stepKeys) && pl < len(stepKeys[r]) && st < len(stepKeys[r][pl]) {
		return stepKeys[r][pl][st]
	}
	return makeStepKey(a.proc.run, a.proc.plan, a.cur)
}

func makeStepKey(run, plan, step int) string {
	return "run" + strconv.Itoa(run) + "/plan" + strconv.Itoa(plan) + "/step" + strconv.Itoa(step)
}

// stepKeys are the step keys of an episode's runs (two at most), plans
// (a re-plan makes a second) and steps (a task has up to eight), made
// once rather than on every keyed call.
var stepKeys = func() (k [2][2][8]string) {
	for r := range k {
		for pl := range k[r] {
			for st := range k[r][pl] {
				k[r][pl][st] = makeStepKey(r, pl, st)
			}
		}
	}
	return k
}()

// newAgent starts a process of run (0 for the first run) with draws d.
func (o *orchestrator) newAgent(d *Draws, run int, resynth bool) *Agent {
	var a *Agent
	var pr *process
	if n := o.nprocs; n < len(o.procs) {
		a, pr = &o.agents[n], &o.procs[n]
		o.nprocs++
	} else {
		a, pr = new(Agent), new(process)
	}
	*a = Agent{P: o.p, T: o.t, Cond: o.cond, D: d, proc: pr}
	*pr = process{o: o, run: run, resynth: resynth}
	return a
}

// runProcess runs a until it finishes the task or stops (dies, or hands
// the task over).
func (o *orchestrator) runProcess(a *Agent) (rep ledger.FinalReport, stopped bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopProcess); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	o.cur = a
	return a.Run(o.front, o.task, o.tools), false
}

// restart waits until a process that stopped at t is started again.
func (o *orchestrator) restart(t float64) {
	r := o.r.RestartMinS + o.u[rslotRestart]*(o.r.RestartMaxS-o.r.RestartMinS)
	if dt := t + r - o.front.Now(); dt > 0 {
		o.front.Advance(dt)
	}
}

// resumed is a process of the run started from its journal.
func (o *orchestrator) resumed(run int) *Agent {
	a := o.newAgent(o.d, run, false)
	a.from = o.journal + 1
	if handoffs(o.task) {
		a.receipt = append([]string(nil), o.receipts...)
		a.lastArgs = append([]map[string]any(nil), o.lastArgs...)
	}
	return a
}

func runOnce(o *orchestrator) ledger.FinalReport {
	rep, _ := o.runProcess(o.newAgent(o.d, 0, o.r.Fault == ledger.AgentFaultReplan))
	return rep
}

func crashAndResume(o *orchestrator) ledger.FinalReport {
	rep, stopped := o.runProcess(o.newAgent(o.d, 0, false))
	if !stopped {
		return rep // the agent stopped before the focal write
	}
	o.restart(o.diedAt)
	rep, _ = o.runProcess(o.resumed(0))
	return rep
}

func retryRun(o *orchestrator) ledger.FinalReport {
	rep, stopped := o.runProcess(o.newAgent(o.d, 0, false))
	if !stopped {
		return rep
	}
	o.restart(o.diedAt)
	// A retried run starts from nothing: no journal, new step keys.
	o.journal = -1
	clear(o.receipts)
	clear(o.lastArgs)
	rep, _ = o.runProcess(o.newAgent(o.d, 1, true))
	return rep
}

func delegate(o *orchestrator) ledger.FinalReport {
	rep, stopped := o.runProcess(o.newAgent(o.d, 0, false))
	if !stopped {
		return rep
	}
	// The sub-agent gets the task, not the history: it starts at the
	// focal step with no receipt and writes every step anew.
	sub := o.newAgent(o.r.Other, 1, true)
	sub.from = o.r.Focal
	rep, _ = o.runProcess(sub)
	return rep
}

func twoWorkers(o *orchestrator) ledger.FinalReport {
	var rep ledger.FinalReport
	first := o.newAgent(o.d, 0, false)
	second := o.newAgent(o.r.Other, 1, true)
	now := o.world.Now()
	o.sched.add(now, func() { rep = first.Run(o.front, o.task, o.tools) })
	o.sched.add(now+o.r.SecondMinS+o.u[rslotSecond]*(o.r.SecondMaxS-o.r.SecondMinS), func() { second.Run(o.front, o.task, o.tools) })
	o.sched.ws[0].agent, o.sched.ws[1].agent = first, second
	o.sched.run()
	return rep
}

// synthesize returns the arguments the process sends for step st, whose
// task arguments are args (returned as they are, or a changed copy): a write sent before, written anew by a
// process that writes anew, follows the perturbation model, keyed by the
// step and how many times it was written; the first synthesis and a
// journaled replay send args.
func (p *process) synthesize(a *Agent, st *sandbox.Step, args map[string]any) map[string]any {
	o := p.o
	n := o.synth[st.Index]
	o.synth[st.Index]++
	if !p.resynth || n == 0 {
		return args
	}
	// The stream keyed by World+"/resynth/<step>/<n>".
	var b [40]byte
	k := strconv.AppendInt(append(b[:0], "/resynth/"...), int64(st.Index), 10)
	k = strconv.AppendInt(append(k, '/'), int64(n), 10)
	o.resynth.Seed(o.r.Seed, hashMore(Hash64(o.r.World), string(k)))
	out, _ := o.r.Perturb.Resynthesize(st.Tool, args, rand.New(&o.resynth))
	return out
}

// sent is told that step st's write, sent at t0, was answered with obs:
// a crash before the journal, or the hand-over to a sub-agent, strikes
// here, before the agent acts on the answer.
func (p *process) sent(a *Agent, st *sandbox.Step, t0 float64, obs sandbox.Observation) {
	o := p.o
	if o.fired || st.Index != o.r.Focal {
		return
	}
	switch {
	case o.r.Fault == ledger.AgentFaultCrashResume && o.r.Window == ledger.WindowBeforeJournal:
		// It dies while it awaits the answer, which dies with it.
		o.fired, o.diedAt = true, t0+o.u[rslotCrash]*obs.LatencyS
		panic(stopProcess{why: "crash"})
	case o.r.Fault == ledger.AgentFaultDelegate:
		o.fired = true
		panic(stopProcess{why: "delegated"})
	}
}

// journaled records that step i is done and strikes the faults that come
// after the focal step's result is journaled; it reports whether the agent
// re-plans and issues the step again.
func (p *process) journaled(a *Agent, i int) bool {
	o := p.o
	o.journal = i
	if a.receipt != nil {
		o.receipts[i], o.lastArgs[i] = a.receipt[i], a.lastArgs[i]
	}
	if o.fired || i != o.r.Focal || o.sched != nil {
		return false
	}
	switch o.r.Fault {
	case ledger.AgentFaultCrashResume:
		if o.r.Window != ledger.WindowAfterJournal {
			return false
		}
		// It dies in the model turn after the journal write.
		o.fired, o.diedAt = true, a.c.Now()+o.u[rslotCrash]*o.t.ThinkMaxS
		panic(stopProcess{why: "crash"})
	case ledger.AgentFaultRunRetry:
		// The next step fails in its model turn.
		o.fired, o.diedAt = true, a.c.Now()+o.u[rslotCrash]*o.t.ThinkMaxS
		panic(stopProcess{why: "run failed"})
	case ledger.AgentFaultReplan:
		o.fired = true
		p.plan++
		return true
	}
	return false
}
