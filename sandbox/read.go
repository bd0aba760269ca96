package sandbox

import "math"

// ReadArgsFor returns the read call an agent would make to verify a write
// through its documented read path (Table 1). ok is false when the write
// has no read path (social_publish on x) or no way to address it
// (social_delete_post: a post id does not name its platform).
func ReadArgsFor(writeTool string, writeArgs map[string]any) (readTool string, readArgs map[string]any, ok bool) {
	ti, found := toolIndex[writeTool]
	if !found || !defs[ti].write {
		return "", nil, false
	}
	str := func(k string) string { s, _ := writeArgs[k].(string); return s }
	switch ti {
	case tSocialPublish:
		p := str("platform")
		if p == "" || p == "x" {
			return "", nil, false
		}
		return "social_list_posts", map[string]any{"platform": p}, true
	case tBillingCreateCharge:
		return "billing_list_charges", map[string]any{"customer_id": str("customer_id")}, true
	case tBillingRefundCharge:
		return "billing_list_charges", map[string]any{}, true
	case tTicketsCreate, tTicketsUpdateStatus:
		return "tickets_list_recent", map[string]any{}, true
	case tTicketsAddComment:
		return "tickets_search", map[string]any{"query": str("text")}, str("text") != ""
	case tMailSend:
		return "mail_search_sent", map[string]any{"query": str("subject")}, str("subject") != ""
	case tDataInsert:
		row, _ := writeArgs["row"].(map[string]any)
		return "data_query", map[string]any{"table": str("table"), "filter": map[string]any{"id": row["id"]}}, row != nil
	case tDataUpsert:
		return "data_query", map[string]any{"table": str("table"), "filter": map[string]any{"id": writeArgs["key"]}}, true
	case tDataInsertMany:
		return "data_query", map[string]any{"table": str("table"), "filter": map[string]any{}}, true
	case tDeployTrigger:
		return "deploy_list_runs", map[string]any{"service": str("service")}, true
	}
	return "", nil, false
}

// Present reports whether readResult (the result of the read ReadArgsFor
// names) shows the write's effect, matching by logical identity as an agent
// reading the listing would. For data_insert_many every row must be there.
func Present(writeTool string, writeArgs map[string]any, readResult map[string]any) bool {
	return PresentCount(writeTool, writeArgs, readResult) > 0
}

// PresentCount returns how many times the listing shows the write's effect
// (for data_insert_many: the smallest count over its rows). An agent can
// tell a duplicate from it.
func PresentCount(writeTool string, writeArgs map[string]any, readResult map[string]any) int {
	return presentCount(writeTool, writeArgs, readResult, false, math.Inf(-1))
}

// ActionCountSince is PresentCount by the catalogue's identity rules, of
// the items created at or after since (an item a listing shows without a
// creation time counts): a listed text that rewords the write's
// (Similarity at least SimilarText) shows the same action. A guard that
// binds calls to logical actions counts so what happened since an attempt
// it never heard back from was sent; the time keeps out what was there
// before (a ticket whose title the write's rewords).
func ActionCountSince(writeTool string, writeArgs map[string]any, readResult map[string]any, since float64) int {
	return presentCount(writeTool, writeArgs, readResult, true, since)
}

// textMatch returns the test of a listed text against want: equal after
// normalisation, or (similar) a rewording of it.
func textMatch(want string, similar bool) func(string) bool {
	n := normText(want)
	if !similar {
		return func(s string) bool { return normText(s) == n }
	}
	return func(s string) bool { return normText(s) == n || Similarity(s, want) >= SimilarText }
}

func presentCount(writeTool string, writeArgs map[string]any, readResult map[string]any, similar bool, since float64) int {
	ti, found := toolIndex[writeTool]
	if !found || readResult == nil {
		return 0
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	count := func(k string, pred func(map[string]any) bool) int { return countItems(readResult[k], pred) }
	if !math.IsInf(since, -1) {
		count = func(k string, pred func(map[string]any) bool) int {
			return countItems(readResult[k], func(m map[string]any) bool {
				if t, ok := m["created_at"].(float64); ok && t < since {
					return false
				}
				return pred(m)
			})
		}
	}
	switch ti {
	case tSocialPublish:
		p, text := str(writeArgs, "platform"), textMatch(str(writeArgs, "text"), similar)
		return count("posts", func(m map[string]any) bool {
			return str(m, "platform") == p && text(str(m, "text"))
		})
	case tBillingCreateCharge:
		cu, amt := str(writeArgs, "customer_id"), scalarString(writeArgs["amount_cents"])
		return count("charges", func(m map[string]any) bool {
			return str(m, "customer_id") == cu && scalarString(m["amount_cents"]) == amt
		})
	case tBillingRefundCharge:
		id := str(writeArgs, "charge_id")
		return count("charges", func(m map[string]any) bool {
			return str(m, "charge_id") == id && str(m, "status") == "refunded"
		})
	case tTicketsCreate:
		title := textMatch(str(writeArgs, "title"), similar)
		return count("tickets", func(m map[string]any) bool { return title(str(m, "title")) })
	case tTicketsUpdateStatus:
		id, to := str(writeArgs, "ticket_id"), str(writeArgs, "to")
		return count("tickets", func(m map[string]any) bool {
			return str(m, "ticket_id") == id && str(m, "status") == to
		})
	case tTicketsAddComment:
		id, text := str(writeArgs, "ticket_id"), textMatch(str(writeArgs, "text"), similar)
		return count("comments", func(m map[string]any) bool {
			return str(m, "ticket_id") == id && text(str(m, "text"))
		})
	case tMailSend:
		to, subj := normText(str(writeArgs, "to")), textMatch(str(writeArgs, "subject"), similar)
		return count("messages", func(m map[string]any) bool {
			return normText(str(m, "to")) == to && subj(str(m, "subject"))
		})
	case tDataInsert, tDataUpsert:
		var pk any
		if ti == tDataUpsert {
			pk = writeArgs["key"]
		} else {
			row, _ := writeArgs["row"].(map[string]any)
			pk = row["id"]
		}
		want := scalarString(pk)
		return count("rows", func(m map[string]any) bool { return scalarString(m["id"]) == want })
	case tDataInsertMany:
		rows := rowsOf(writeArgs["rows"])
		if len(rows) == 0 {
			return 0
		}
		minN := -1
		for _, r := range rows {
			want := scalarString(r["id"])
			n := count("rows", func(m map[string]any) bool { return scalarString(m["id"]) == want })
			if minN < 0 || n < minN {
				minN = n
			}
		}
		return minN
	case tDeployTrigger:
		env, ref := str(writeArgs, "env"), str(writeArgs, "ref")
		return count("runs", func(m map[string]any) bool {
			return str(m, "env") == env && str(m, "ref") == ref
		})
	}
	return 0
}

// countItems counts the objects of a listing (a []any of objects, or a
// []map[string]any) that satisfy pred, without copying the listing.
func countItems(list any, pred func(map[string]any) bool) int {
	n := 0
	switch x := list.(type) {
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok && pred(m) {
				n++
			}
		}
	case []map[string]any:
		for _, m := range x {
			if pred(m) {
				n++
			}
		}
	}
	return n
}
