package sandbox

import (
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// world builds a world for task tpl#0 with the given focal step and fault.
func world(t testing.TB, tpl string, focal int, fault, contract string) *World {
	t.Helper()
	task, err := NewTask(tpl, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(Spec{Task: task, FocalIndex: focal, Fault: fault, Contract: contract, DelayS: 0, Seed: 11, EpisodeID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustOK(t *testing.T, o Observation, what string) map[string]any {
	t.Helper()
	if o.Outcome != ledger.OutcomeOK {
		t.Fatalf("%s: %s %s", what, o.Outcome, o.Error)
	}
	return o.Result
}

func listLen(res map[string]any, key string) int {
	l, _ := res[key].([]any)
	return len(l)
}

func TestSocialContract(t *testing.T) {
	w := world(t, "T01", 0, ledger.FaultNone, ledger.ContractNative)
	pub := func(platform, text string) Observation {
		return w.Call("social_publish", map[string]any{"platform": platform, "text": text})
	}
	r := mustOK(t, pub("mastodon", "hello"), "publish mastodon")
	if _, ok := r["post_id"].(string); !ok {
		t.Fatalf("publish result %v has no post_id", r)
	}
	if n := listLen(mustOK(t, w.Call("social_list_posts", map[string]any{"platform": "mastodon"}), "list"), "posts"); n != 1 {
		t.Errorf("mastodon listing: %d posts, want 1 (strong)", n)
	}
	mustOK(t, pub("weibo", "你好"), "publish weibo")
	tw := w.Now()
	if n := listLen(mustOK(t, w.Call("social_list_posts", map[string]any{"platform": "weibo"}), "list"), "posts"); n != 0 {
		t.Errorf("weibo listing right after publish: %d posts, want 0 (lags 180 s)", n)
	}
	w.Advance(180 - (w.Now() - tw) + 5)
	if n := listLen(mustOK(t, w.Call("social_list_posts", map[string]any{"platform": "weibo"}), "list"), "posts"); n != 1 {
		t.Errorf("weibo listing after 180 s: %d posts, want 1", n)
	}
	if o := w.Call("social_list_posts", map[string]any{"platform": "x"}); o.Outcome != ledger.OutcomeHTTP400 {
		t.Errorf("x listing: %s, want http400 (no read path)", o.Outcome)
	}
	id := r["post_id"].(string)
	mustOK(t, w.Call("social_delete_post", map[string]any{"post_id": id}), "delete")
	if o := w.Call("social_delete_post", map[string]any{"post_id": id}); o.Outcome != ledger.OutcomeHTTP404 {
		t.Errorf("second delete: %s, want http404", o.Outcome)
	}
	// Native: a key on linkedin is ignored, so a repeat publishes again.
	for range 2 {
		mustOK(t, w.Call("social_publish", map[string]any{"platform": "linkedin", "text": "same", "idempotency_key": "k1"}), "linkedin")
	}
	if n := listLen(mustOK(t, w.Call("social_list_posts", map[string]any{"platform": "linkedin"}), "list"), "posts"); n != 2 {
		t.Errorf("linkedin with a repeated key: %d posts, want 2 (key ignored natively)", n)
	}
	// On mastodon the key is honoured.
	a := mustOK(t, w.Call("social_publish", map[string]any{"platform": "mastodon", "text": "keyed", "idempotency_key": "k2"}), "m1")
	b := mustOK(t, w.Call("social_publish", map[string]any{"platform": "mastodon", "text": "keyed", "idempotency_key": "k2"}), "m2")
	if a["post_id"] != b["post_id"] {
		t.Errorf("mastodon same key: post ids %v and %v, want the stored first result", a["post_id"], b["post_id"])
	}
}

func TestBillingContract(t *testing.T) {
	w := world(t, "T04", 0, ledger.FaultNone, ledger.ContractNative)
	task := w.Task()
	ch := task.Steps[0].Args["charge_id"].(string)
	cu := task.Setup.Charges[0]["customer_id"].(string)
	mustOK(t, w.Call("billing_refund_charge", map[string]any{"charge_id": ch}), "refund")
	if o := w.Call("billing_refund_charge", map[string]any{"charge_id": ch}); o.Outcome != ledger.OutcomeHTTP409 {
		t.Errorf("second refund: %s, want http409", o.Outcome)
	}
	if o := w.Call("billing_refund_charge", map[string]any{"charge_id": "ch_nope"}); o.Outcome != ledger.OutcomeHTTP404 {
		t.Errorf("unknown charge: %s, want http404", o.Outcome)
	}
	list := mustOK(t, w.Call("billing_list_charges", map[string]any{"customer_id": cu}), "list")
	if !Present("billing_refund_charge", map[string]any{"charge_id": ch}, list) {
		t.Error("refund not visible in the strong listing")
	}
	c := map[string]any{"customer_id": cu, "amount_cents": 500, "description": "x"}
	mustOK(t, w.Call("billing_create_charge", c), "charge")
	list = mustOK(t, w.Call("billing_list_charges", map[string]any{"customer_id": cu}), "list")
	if n := listLen(list, "charges"); n != 3 {
		t.Errorf("charges listed %d, want 3", n)
	}
	if !Present("billing_create_charge", c, list) {
		t.Error("new charge not present")
	}
	if ep, _ := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})); ep.TaskSuccess {
		t.Error("one of two refunds done plus an extra charge: want task failure")
	}
}

func TestTicketsContract(t *testing.T) {
	w := world(t, "T05", 0, ledger.FaultNone, ledger.ContractNative)
	task := w.Task()
	for _, s := range task.Steps {
		mustOK(t, w.Call(s.Tool, s.Args), s.Tool)
	}
	list := mustOK(t, w.Call("tickets_list_recent", map[string]any{}), "list")
	for _, i := range []int{0, 2} {
		if !Present(task.Steps[i].Tool, task.Steps[i].Args, list) {
			t.Errorf("step %d (%s) not in the strong listing", i, task.Steps[i].Tool)
		}
	}
	st := task.Steps[1]
	rt, ra, _ := ReadArgsFor(st.Tool, st.Args)
	if Present(st.Tool, st.Args, mustOK(t, w.Call(rt, ra), "search")) {
		t.Error("comment visible in search at once; want a 120 s lag")
	}
	w.Advance(125)
	if !Present(st.Tool, st.Args, mustOK(t, w.Call(rt, ra), "search")) {
		t.Error("comment not in search after 120 s")
	}
	if o := w.Call(task.Steps[2].Tool, task.Steps[2].Args); o.Outcome != ledger.OutcomeHTTP412 {
		t.Errorf("repeated update_status: %s, want http412", o.Outcome)
	}
	if o := w.Call("tickets_add_comment", map[string]any{"ticket_id": "TCK-0", "text": "x"}); o.Outcome != ledger.OutcomeHTTP404 {
		t.Errorf("comment on unknown ticket: %s, want http404", o.Outcome)
	}
	ep, _ := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
	if !ep.EOS {
		t.Errorf("clean T05 run: eos false (%+v)", ep)
	}
}

func TestMailContract(t *testing.T) {
	w := world(t, "T07", 0, ledger.FaultNone, ledger.ContractNative)
	s := w.Task().Steps[0]
	mustOK(t, w.Call(s.Tool, s.Args), "send")
	mustOK(t, w.Call(s.Tool, s.Args), "send again")
	rt, ra, _ := ReadArgsFor(s.Tool, s.Args)
	if PresentCount(s.Tool, s.Args, mustOK(t, w.Call(rt, ra), "search")) != 0 {
		t.Error("sent mail visible at once; want a 120 s lag")
	}
	w.Advance(121)
	if n := PresentCount(s.Tool, s.Args, mustOK(t, w.Call(rt, ra), "search")); n != 2 {
		t.Errorf("after the lag: %d messages, want 2 (send is not idempotent)", n)
	}
	ep, _ := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
	if !ep.Duplicated || ep.TaskSuccess || !ep.Overclaim {
		t.Errorf("sent twice, second recipient missed: duplicated=%v task_success=%v overclaim=%v", ep.Duplicated, ep.TaskSuccess, ep.Overclaim)
	}
}

func TestDataContract(t *testing.T) {
	w := world(t, "T10", 0, ledger.FaultNone, ledger.ContractNative)
	task := w.Task()
	ins, ups := task.Steps[0], task.Steps[2]
	mustOK(t, w.Call(ins.Tool, ins.Args), "insert")
	mustOK(t, w.Call(ins.Tool, ins.Args), "insert again")
	rt, ra, _ := ReadArgsFor(ins.Tool, ins.Args)
	if n := PresentCount(ins.Tool, ins.Args, mustOK(t, w.Call(rt, ra), "query")); n != 2 {
		t.Errorf("insert twice: %d rows, want 2 (uniqueness not enforced)", n)
	}
	mustOK(t, w.Call(ups.Tool, ups.Args), "upsert")
	mustOK(t, w.Call(ups.Tool, ups.Args), "upsert again")
	rt, ra, _ = ReadArgsFor(ups.Tool, ups.Args)
	if n := PresentCount(ups.Tool, ups.Args, mustOK(t, w.Call(rt, ra), "query")); n != 1 {
		t.Errorf("upsert twice: %d rows, want 1", n)
	}
	many := map[string]any{"table": "inv", "rows": []any{map[string]any{"id": "a"}, map[string]any{"id": "b", "q": 2}}}
	mustOK(t, w.Call("data_insert_many", many), "insert_many")
	q := mustOK(t, w.Call("data_query", map[string]any{"table": "inv", "filter": map[string]any{"q": 2}}), "query")
	if listLen(q, "rows") != 1 {
		t.Errorf("filtered query: %v, want one row", q)
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	ep, _ := Grade(raw)
	if !ep.Duplicated || ep.EOS {
		t.Errorf("inserted a row twice plus unrequested rows: duplicated=%v eos=%v", ep.Duplicated, ep.EOS)
	}
}

func TestDeployContract(t *testing.T) {
	w := world(t, "T11", 0, ledger.FaultNone, ledger.ContractNative)
	s := w.Task().Steps[0]
	r := mustOK(t, w.Call(s.Tool, s.Args), "trigger")
	id := r["run_id"].(string)
	if got := mustOK(t, w.Call("deploy_get_run", map[string]any{"run_id": id}), "get"); got["status"] != "running" {
		t.Errorf("run status %v, want running", got["status"])
	}
	w.Advance(61)
	if got := mustOK(t, w.Call("deploy_get_run", map[string]any{"run_id": id}), "get"); got["status"] != "succeeded" {
		t.Errorf("run status %v, want succeeded", got["status"])
	}
	if o := w.Call("deploy_get_run", map[string]any{"run_id": "run_x"}); o.Outcome != ledger.OutcomeHTTP404 {
		t.Errorf("unknown run: %s, want http404", o.Outcome)
	}
	rt, ra, _ := ReadArgsFor(s.Tool, s.Args)
	if !Present(s.Tool, s.Args, mustOK(t, w.Call(rt, ra), "list")) {
		t.Error("run not in the strong listing")
	}
}
