package agent

import (
	"iter"
	"math"

	"github.com/limbo-toolkit/limbo/sandbox"
)

// workers runs several agents in one world at once, in virtual time: two
// workers that picked up the same task. Each agent runs as a coroutine
// (iter.Pull); its calls go through the schedule, which is itself the
// Caller every agent and guard in front of it sees. A call is sent at once
// (World.Start) and the calling worker pauses until its answer is due; a
// model turn pauses it for the turn. The schedule always resumes the worker
// whose next moment comes first (the lower index on a tie) and moves the
// world's clock to that moment, firing the events due by then, so the
// interleaving, and with it the run, is a function of the draws alone.
//
// One coroutine runs at a time, so the schedule's state needs no lock:
// the caller methods act for the worker that is running (cur).
type workers struct {
	world *sandbox.World
	ws    []*worker
	cur   *worker
}

type worker struct {
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	wake    float64 // the moment it resumes
	blocked string  // the guard key it waits on; "" when not waiting
	done    bool
	agent   *Agent // whose step keys its calls carry
}

var _ Caller = (*workers)(nil)

// add starts a worker at virtual time at, running body.
func (s *workers) add(at float64, body func()) {
	w := &worker{wake: at}
	w.next, w.stop = iter.Pull(func(yield func(struct{}) bool) {
		w.yield = yield
		body()
	})
	s.ws = append(s.ws, w)
}

// run resumes the workers in order of their next moment until every one
// has finished. A worker that panics ends the run with its panic.
func (s *workers) run() {
	defer func() {
		for _, w := range s.ws {
			s.stopWorker(w)
		}
	}()
	for {
		var w *worker
		for _, c := range s.ws {
			if !c.done && (w == nil || c.wake < w.wake) {
				w = c
			}
		}
		if w == nil || math.IsInf(w.wake, 1) {
			// Done, or every worker left waits on a guard key no attempt
			// holds: nothing would ever wake them.
			return
		}
		if d := w.wake - s.world.Now(); d > 0 {
			s.world.Advance(d)
		}
		s.cur = w
		if _, ok := w.next(); !ok {
			w.done = true
		}
	}
}

// stopWorker ends a worker's coroutine; one still paused unwinds with a
// stopProcess panic, which ends here.
func (s *workers) stopWorker(w *worker) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopProcess); !ok {
				panic(r)
			}
		}
	}()
	w.stop()
}

// pause suspends the running worker until the schedule resumes it.
func (s *workers) pause() {
	w := s.cur
	if !w.yield(struct{}{}) {
		// The schedule stopped the coroutine: unwind it.
		panic(stopProcess{why: "schedule stopped"})
	}
	s.cur = w
}

// Now is the world's clock.
func (s *workers) Now() float64 { return s.world.Now() }

// Advance pauses the running worker for dt seconds of virtual time.
func (s *workers) Advance(dt float64) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return
	}
	s.cur.wake = s.world.Now() + dt
	s.pause()
}

// Call sends the call now and pauses the running worker until its answer
// is due.
func (s *workers) Call(tool string, args map[string]any) sandbox.Observation {
	o := s.world.Start(tool, args)
	if o.LatencyS > 0 {
		s.cur.wake = s.world.Now() + o.LatencyS
		s.pause()
	}
	return o
}

// block pauses the running worker until release(key).
func (s *workers) block(key string) {
	s.cur.blocked, s.cur.wake = key, math.Inf(1)
	s.pause()
}

// release resumes, at the current moment, the workers waiting on key.
func (s *workers) release(key string) {
	for _, w := range s.ws {
		if w.blocked == key && key != "" {
			w.blocked, w.wake = "", s.world.Now()
		}
	}
}
