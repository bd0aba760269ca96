package sandbox

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The hot-path rewrites must agree with the plain code they replace.

// normASCII against strings.Join(strings.Fields(strings.ToLower(s)), " ")
// (the reference, exact) on hand-picked and random ASCII strings.
func TestNormASCIIMatchesFields(t *testing.T) {
	ref := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	cases := []string{"", " ", "A", "  Hello   World  ", "a\tb\nc\vd\fe\rf", "MiXeD  CaSe\t\t", "x  ", "  y", "Z@[`{", "\x00\x01 \x7f"}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ \t\n\v\f\r.9@[`{\x00\x7f"
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := normASCII(s), ref(s); got != want {
			t.Errorf("normASCII(%q) = %q, want %q", s, got, want)
		}
	}
}

// appendCanon sorts object members like encoding/json (which sorts map
// keys), including objects larger than its stack buffer.
func TestAppendCanonKeyOrder(t *testing.T) {
	m := map[string]any{}
	for i, k := range strings.Fields("q w e r t y u i o p a s d f g h j k l z") {
		m[k] = i
		m["n"+k] = map[string]any{"b": k, "a": []any{"x", k, true, nil}}
	}
	got := appendCanon(nil, m, "")
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.TrimSuffix(want.String(), "\n") {
		t.Errorf("appendCanon:\n%s\nencoding/json:\n%s", got, want.String())
	}
	if s := string(appendCanon(nil, map[string]any{"b": 1, "idempotency_key": "k", "a": 2}, "idempotency_key")); s != `{"a":2,"b":1}` {
		t.Errorf("skip: got %s", s)
	}
}

// The event queue pops in (time, insertion) order, as the heap it replaced.
func TestEventQueueOrder(t *testing.T) {
	var q eventQueue
	times := []float64{90, 3, 90, 33, 3, 7200, 0, 33}
	for i, tm := range times {
		q.push(event{t: tm, seq: int64(i + 1)})
	}
	type ts struct {
		t   float64
		seq int64
	}
	want := []ts{{0, 7}, {3, 2}, {3, 5}, {33, 4}, {33, 8}, {90, 1}, {90, 3}, {7200, 6}}
	for i, w := range want {
		e := q.pop()
		if (ts{e.t, e.seq}) != w {
			t.Fatalf("pop %d = (%v, %d), want %v", i, e.t, e.seq, w)
		}
	}
	if len(q) != 0 {
		t.Errorf("%d events left", len(q))
	}
}

// appendCanonArgs equals appendCanon for every tool on known, partial,
// unknown-keyed and empty arguments.
func TestAppendCanonArgsMatches(t *testing.T) {
	for ti := range defs {
		full := map[string]any{"idempotency_key": "k"}
		for i, p := range defs[ti].params {
			full[p.name] = map[string]any{"z": i, "a": "v\n"}
		}
		partial := map[string]any{}
		for i, p := range defs[ti].params {
			if i%2 == 0 {
				partial[p.name] = float64(i) + 0.5
			}
		}
		extra := map[string]any{"zz_unknown": 1}
		if len(defs[ti].params) > 0 {
			extra[defs[ti].params[0].name] = "x"
		}
		for _, args := range []map[string]any{full, partial, extra, {}, nil} {
			got, want := appendCanonArgs([]byte("pre"), ti, args), appendCanon([]byte("pre"), args, "")
			if string(got) != string(want) {
				t.Errorf("%s %v: got %s, want %s", defs[ti].name, args, got, want)
			}
		}
	}
}

// notFound and appendQuote build the messages the former concatenations
// of strconv.Quote did.
func TestNotFoundMessage(t *testing.T) {
	oldQuote := func(s string) string {
		if len(s) > 64 {
			s = s[:64] + "…"
		}
		return strconv.Quote(s)
	}
	for _, id := range []string{"", "run_1", `a"b\c`, "\xff\x00é", strings.Repeat("x", 64), strings.Repeat("y", 65), strings.Repeat("é", 100)} {
		if got, want := notFound("run", id), "run "+oldQuote(id)+" not found"; got != want {
			t.Errorf("notFound(%q) = %q, want %q", id, got, want)
		}
		if got := quote(id); got != oldQuote(id) {
			t.Errorf("quote(%q) = %q, want %q", id, got, oldQuote(id))
		}
	}
}

// The Args of calls read mid-episode (Calls) and at Finish are the
// canonical JSON of the arguments, however the reads interleave.
func TestArgsSyncInterleaved(t *testing.T) {
	task, err := NewTask("T02", 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(Spec{Task: task, FocalIndex: 0, Fault: ledger.FaultTimeoutPre, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	call := func(tool string, args map[string]any) {
		w.Call(tool, args)
		want = append(want, string(appendCanon(nil, args, "")))
	}
	for i, s := range task.Steps {
		call(s.Tool, s.Args)
		if i%2 == 0 {
			for j, c := range w.Calls() {
				if c.Args != want[j] {
					t.Fatalf("after step %d, call %d args %s, want %s", i, j, c.Args, want[j])
				}
			}
		}
		call(ToolWait, map[string]any{"seconds": 1.0})
		call("nope", map[string]any{"z": 1, "a": "\n"})
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	if len(raw.Calls) != len(want) {
		t.Fatalf("%d calls, want %d", len(raw.Calls), len(want))
	}
	for j, c := range raw.Calls {
		if c.Args != want[j] {
			t.Errorf("call %d args %s, want %s", j, c.Args, want[j])
		}
	}
}
