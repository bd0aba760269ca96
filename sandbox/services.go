package sandbox

import (
	"maps"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// stores pre-size the records of each service for a world whose task
// commits about n effects: the service's mechanics, registered by the
// catalogue's service name (ledger.Services).
var stores = map[string]func(w *World, n int){
	"social":  func(w *World, n int) { w.posts = make([]post, 0, n) },
	"billing": func(w *World, n int) { w.charges = make([]charge, 0, n+len(w.task.Setup.Charges)) },
	"tickets": func(w *World, n int) {
		w.tickets = make([]ticket, 0, n+len(w.task.Setup.Tickets))
		w.comments = make([]comment, 0, n)
	},
	"mail":   func(w *World, n int) { w.mails = make([]mail, 0, n) },
	"data":   func(w *World, n int) { w.rows = make([]row, 0, 4*n) },
	"deploy": func(w *World, n int) { w.runs = make([]run, 0, n) },
}

// apply executes a write against its service at time t and records the
// effects it commits. skip is the number of batch rows already inserted
// under the request's key. done reports rows committed by a batch that
// failed part-way (partial_batch), else 0.
func (w *World) apply(req *request, t float64, skip int) (res map[string]any, outcome, msg string, done int) {
	a := req.args
	str := func(k string) string { s, _ := a[k].(string); return s }
	hide := func(lag float64) float64 {
		if req.stale {
			return t + staleHideS
		}
		return t + lag
	}
	ok := ledger.OutcomeOK
	switch req.d.id {
	case tSocialPublish:
		p := post{id: w.newID("p_", req, 0), platform: str("platform"), text: str("text"), at: t}
		p.visible = hide(0)
		if p.platform == "weibo" {
			p.visible = hide(lagWeibo)
		}
		// Views reuse the request's boxed values: fewer allocations per call.
		p.view = map[string]any{"post_id": p.id, "platform": a["platform"], "text": a["text"], "created_at": t}
		w.posts = append(w.posts, p)
		w.addEffect(req, t, p.id, false)
		return p.view, ok, "", 0

	case tSocialDeletePost:
		id := str("post_id")
		for i := range w.posts {
			p := &w.posts[i]
			if p.id == id && !p.deleted {
				p.deleted = true
				w.addEffect(req, t, id, false)
				return map[string]any{"post_id": id, "deleted": true}, ok, "", 0
			}
		}
		return nil, ledger.OutcomeHTTP404, notFound("post", id), 0

	case tBillingCreateCharge:
		amt, _ := number(a["amount_cents"])
		c := charge{id: w.newID("ch_", req, 0), customer: str("customer_id"), desc: str("description"), amount: amt, at: t, visible: hide(0)}
		c.views[0] = map[string]any{"charge_id": c.id, "customer_id": a["customer_id"], "amount_cents": a["amount_cents"], "description": a["description"], "status": "succeeded", "created_at": t}
		w.charges = append(w.charges, c)
		w.addEffect(req, t, c.id, false)
		return c.views[0], ok, "", 0

	case tBillingRefundCharge:
		id := str("charge_id")
		for i := range w.charges {
			c := &w.charges[i]
			if c.id != id {
				continue
			}
			if c.refunded {
				return nil, ledger.OutcomeHTTP409, "charge " + quote(id) + " has already been refunded", 0
			}
			c.refunded = true
			c.refundVisible = hide(0)
			rid := w.newID("re_", req, 0)
			w.addEffect(req, t, rid, false)
			return map[string]any{"refund_id": rid, "charge_id": id, "amount_cents": c.amount, "status": "refunded"}, ok, "", 0
		}
		return nil, ledger.OutcomeHTTP404, notFound("charge", id), 0

	case tTicketsCreate:
		tk := ticket{id: w.newID("tk_", req, 0), title: str("title"), body: str("body"), status: "open", prev: "open", at: t}
		tk.listVisible, tk.search, tk.statusVisible = hide(0), hide(lagTickets), t
		tk.view, tk.viewStatus = map[string]any{"ticket_id": tk.id, "title": a["title"], "status": "open", "created_at": t}, tk.status
		w.tickets = append(w.tickets, tk)
		w.addEffect(req, t, tk.id, false)
		return tk.view, ok, "", 0

	case tTicketsAddComment:
		tk := w.ticket(str("ticket_id"))
		if tk == nil {
			return nil, ledger.OutcomeHTTP404, notFound("ticket", str("ticket_id")), 0
		}
		c := comment{id: w.newID("cm_", req, 0), ticket: tk.id, text: str("text"), at: t, visible: hide(lagTickets)}
		c.view = map[string]any{"comment_id": c.id, "ticket_id": c.ticket, "text": a["text"], "created_at": t}
		w.comments = append(w.comments, c)
		w.addEffect(req, t, c.id, false)
		return c.view, ok, "", 0

	case tTicketsUpdateStatus:
		tk := w.ticket(str("ticket_id"))
		if tk == nil {
			return nil, ledger.OutcomeHTTP404, notFound("ticket", str("ticket_id")), 0
		}
		if tk.status != str("from") {
			return nil, ledger.OutcomeHTTP412, "precondition failed: ticket " + tk.id + " has status " + quote(tk.status) + ", not " + quote(str("from")), 0
		}
		tk.prev, tk.status, tk.statusVisible = tk.status, str("to"), hide(0)
		w.addEffect(req, t, tk.id, false)
		return map[string]any{"ticket_id": tk.id, "status": tk.status}, ok, "", 0

	case tMailSend:
		m := mail{id: w.newID("msg_", req, 0), to: str("to"), subject: str("subject"), body: str("body"), at: t, visible: hide(lagMail)}
		m.view = map[string]any{"message_id": m.id, "to": a["to"], "subject": a["subject"], "sent_at": t}
		w.mails = append(w.mails, m)
		w.addEffect(req, t, m.id, false)
		return m.view, ok, "", 0

	case tDataInsert:
		row, _ := a["row"].(map[string]any)
		r := w.insertRow(req, t, str("table"), row, 0)
		return map[string]any{"inserted": 1, "id": r.pk}, ok, "", 0

	case tDataInsertMany:
		rows := rowsOf(a["rows"])
		n := len(rows)
		stop := n
		if req.partial {
			stop = (n + 1) / 2 // the first ⌈n/2⌉ rows commit, then the batch fails
		}
		for i := skip; i < stop; i++ {
			w.insertRow(req, t, str("table"), rows[i], i)
		}
		if stop < n {
			return nil, ledger.OutcomeHTTP500, msg500, stop - skip
		}
		return map[string]any{"inserted": n}, ok, "", 0

	case tDataUpsert:
		table, key := str("table"), str("key")
		fields, _ := a["row"].(map[string]any)
		for i := len(w.rows) - 1; i >= 0; i-- {
			r := &w.rows[i]
			if r.table != table || r.pk != key {
				continue
			}
			if sameFields(r.fields, fields, key) {
				// The same row again: no new effect (natural idempotency).
				return map[string]any{"upserted": true, "created": false, "id": key}, ok, "", 0
			}
			r.fields = withField(fields, "id", key)
			r.at, r.visible = t, hide(0)
			w.addEffect(req, t, r.resource, false)
			return map[string]any{"upserted": true, "created": false, "id": key}, ok, "", 0
		}
		w.insertRow(req, t, table, withField(fields, "id", key), 0)
		return map[string]any{"upserted": true, "created": true, "id": key}, ok, "", 0

	case tDeployTrigger:
		r := run{id: w.newID("run_", req, 0), service: str("service"), env: str("env"), ref: str("ref"), at: t, visible: hide(0)}
		r.views[0] = map[string]any{"run_id": r.id, "service": a["service"], "env": a["env"], "ref": a["ref"], "status": "running", "created_at": t}
		w.runs = append(w.runs, r)
		w.addEffect(req, t, r.id, false)
		return r.views[0], ok, "", 0
	}
	return nil, ledger.OutcomeHTTP400, invalid("not a write: ", req.d.name), 0
}

func (w *World) insertRow(req *request, t float64, table string, fields map[string]any, n int) *row {
	pk := scalarString(fields["id"])
	r := row{table: table, pk: pk, resource: rowResource(table, fields["id"]), fields: fields, at: t, visible: t}
	if req.stale {
		r.visible = t + staleHideS
	}
	w.rows = append(w.rows, r)
	w.addEffect(req, t, r.resource, false)
	return &w.rows[len(w.rows)-1]
}

// withField returns a copy of m with k set to v. maps.Clone copies a small
// map's table wholesale, cheaper than re-inserting every member.
func withField(m map[string]any, k string, v any) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = make(map[string]any, 1)
	}
	out[k] = v
	return out
}

func sameFields(stored, fields map[string]any, key string) bool {
	n := len(fields)
	if _, ok := fields["id"]; !ok {
		n++
	}
	if len(stored) != n {
		return false
	}
	for k, v := range fields {
		if sv, ok := stored[k]; !ok || scalarString(sv) != scalarString(v) {
			return false
		}
	}
	return scalarString(stored["id"]) == key
}

func (w *World) ticket(id string) *ticket {
	for i := range w.tickets {
		if w.tickets[i].id == id {
			return &w.tickets[i]
		}
	}
	return nil
}

func chargeResult(c *charge) map[string]any {
	status := "succeeded"
	if c.refunded {
		status = "refunded"
	}
	return map[string]any{"charge_id": c.id, "customer_id": c.customer, "amount_cents": c.amount, "description": c.desc, "status": status, "created_at": c.at}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// read answers a read or oracle tool from the state visible now.
func (w *World) read(d *toolDef, a map[string]any) (map[string]any, string, string) {
	str := func(k string) string { s, _ := a[k].(string); return s }
	now := w.now
	ok := ledger.OutcomeOK
	switch d.id {
	case tSocialListPosts:
		platform := str("platform")
		if platform == "x" {
			return nil, ledger.OutcomeHTTP400, invalid("social_list_posts is not available for x")
		}
		out := make([]any, 0, 4)
		for i := len(w.posts) - 1; i >= 0 && len(out) < listLimit; i-- {
			p := &w.posts[i]
			if p.platform == platform && !p.deleted && p.visible <= now {
				if p.view == nil {
					p.view = map[string]any{"post_id": p.id, "platform": p.platform, "text": p.text, "created_at": p.at}
				}
				out = append(out, p.view)
			}
		}
		return map[string]any{"posts": out}, ok, ""

	case tBillingListCharges:
		cu := str("customer_id")
		out := make([]any, 0, 4)
		for i := len(w.charges) - 1; i >= 0 && len(out) < listLimit; i-- {
			c := &w.charges[i]
			if (cu != "" && c.customer != cu) || c.visible > now {
				continue
			}
			v := 0
			if c.refunded && c.refundVisible <= now {
				v = 1
			}
			if c.views[0] == nil {
				view := *c
				view.refunded = false
				c.views[0] = chargeResult(&view)
			}
			if c.views[v] == nil {
				c.views[v] = withField(c.views[0], "status", "refunded")
			}
			out = append(out, c.views[v])
		}
		return map[string]any{"charges": out}, ok, ""

	case tTicketsListRecent:
		out := make([]any, 0, 4)
		for i := len(w.tickets) - 1; i >= 0 && len(out) < listLimit; i-- {
			tk := &w.tickets[i]
			if tk.listVisible > now {
				continue
			}
			st := tk.status
			if tk.statusVisible > now {
				st = tk.prev
			}
			if tk.view == nil || tk.viewStatus != st {
				tk.view, tk.viewStatus = map[string]any{"ticket_id": tk.id, "title": tk.title, "status": st, "created_at": tk.at}, st
			}
			out = append(out, tk.view)
		}
		return map[string]any{"tickets": out}, ok, ""

	case tTicketsSearch:
		q := str("query")
		tks := make([]any, 0, 2)
		for i := len(w.tickets) - 1; i >= 0 && len(tks) < listLimit; i-- {
			tk := &w.tickets[i]
			if tk.search <= now && (containsFold(tk.title, q) || containsFold(tk.body, q)) {
				if tk.sview == nil {
					tk.sview = map[string]any{"ticket_id": tk.id, "title": tk.title, "created_at": tk.at}
				}
				tks = append(tks, tk.sview)
			}
		}
		cms := make([]any, 0, 2)
		for i := len(w.comments) - 1; i >= 0 && len(cms) < listLimit; i-- {
			c := &w.comments[i]
			if c.visible <= now && containsFold(c.text, q) {
				if c.view == nil {
					c.view = map[string]any{"comment_id": c.id, "ticket_id": c.ticket, "text": c.text, "created_at": c.at}
				}
				cms = append(cms, c.view)
			}
		}
		return map[string]any{"tickets": tks, "comments": cms}, ok, ""

	case tMailSearchSent:
		q := str("query")
		out := make([]any, 0, 4)
		for i := len(w.mails) - 1; i >= 0 && len(out) < listLimit; i-- {
			m := &w.mails[i]
			if m.visible <= now && (containsFold(m.to, q) || containsFold(m.subject, q) || containsFold(m.body, q)) {
				if m.view == nil {
					m.view = map[string]any{"message_id": m.id, "to": m.to, "subject": m.subject, "sent_at": m.at}
				}
				out = append(out, m.view)
			}
		}
		return map[string]any{"messages": out}, ok, ""

	case tDataQuery:
		table := str("table")
		filter, _ := a["filter"].(map[string]any)
		out := make([]any, 0, 4)
		for i := range w.rows {
			r := &w.rows[i]
			if r.table != table || r.visible > now || !matches(r.fields, filter) {
				continue
			}
			cp := make(map[string]any, len(r.fields))
			for k, v := range r.fields {
				cp[k] = v
			}
			out = append(out, cp)
		}
		return map[string]any{"rows": out}, ok, ""

	case tDeployListRuns:
		svc := str("service")
		out := make([]any, 0, 4)
		for i := len(w.runs) - 1; i >= 0 && len(out) < listLimit; i-- {
			r := &w.runs[i]
			if r.service == svc && r.visible <= now {
				out = append(out, w.runResult(r))
			}
		}
		return map[string]any{"runs": out}, ok, ""

	case tDeployGetRun:
		id := str("run_id")
		for i := range w.runs {
			if w.runs[i].id == id && w.runs[i].visible <= now {
				return w.runResult(&w.runs[i]), ok, ""
			}
		}
		return nil, ledger.OutcomeHTTP404, notFound("run", id)

	case tStateOracle, tOutcomeOracle:
		return w.oracle(d, a)
	}
	return nil, ledger.OutcomeHTTP400, invalid("not a read: ", d.name)
}

func (w *World) runResult(r *run) map[string]any {
	v, st := 0, "running"
	if w.now >= r.at+runDurationS {
		v, st = 1, "succeeded"
	}
	if r.views[v] == nil {
		r.views[v] = withField(r.views[0], "status", st)
	}
	return r.views[v]
}

func matches(fields, filter map[string]any) bool {
	for k, v := range filter {
		fv, ok := fields[k]
		if !ok || scalarString(fv) != scalarString(v) {
			return false
		}
	}
	return true
}

// oracle answers state_oracle (committed now, ignoring read-path lags,
// blind to in-flight requests) and outcome_oracle (committed, in_flight or
// not_executed).
func (w *World) oracle(d *toolDef, a map[string]any) (map[string]any, string, string) {
	tool, _ := a["tool"].(string)
	args, _ := a["args"].(map[string]any)
	ti, ok := toolIndex[tool]
	if !ok || !defs[ti].write {
		return nil, ledger.OutcomeHTTP400, invalid("oracle: ", quote(tool), " is not a write tool")
	}
	if msg := validate(&defs[ti], args); msg != "" {
		return nil, ledger.OutcomeHTTP400, "oracle: " + msg
	}
	ids := identities(ti, args)
	count := 0
	rows := make(map[string]bool, len(ids))
	for i, id := range w.effIDs {
		if w.effects[i].Absorbed {
			continue
		}
		for _, want := range ids {
			if id == want {
				count++
				rows[id] = true
			}
		}
	}
	committed := len(ids) > 0 && len(rows) == len(uniq(ids))
	if d.id == tStateOracle {
		return map[string]any{"committed": committed, "effects": count}, ledger.OutcomeOK, ""
	}
	status := "not_executed"
	switch {
	case committed:
		status = "committed"
	case w.pending(ids):
		status = "in_flight"
	case count > 0:
		status = "partially_committed"
	}
	return map[string]any{"status": status, "effects": count}, ledger.OutcomeOK, ""
}

func uniq(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// pending reports whether a scheduled delivery will touch one of ids.
func (w *World) pending(ids []string) bool {
	for _, ev := range w.events {
		for _, a := range ev.req.ids {
			for _, b := range ids {
				if a == b {
					return true
				}
			}
		}
	}
	return false
}
