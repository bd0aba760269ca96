package sandbox

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
	ti, found := toolIndex[writeTool]
	if !found || readResult == nil {
		return 0
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	count := func(k string, pred func(map[string]any) bool) int { return countItems(readResult[k], pred) }
	switch ti {
	case tSocialPublish:
		p, text := str(writeArgs, "platform"), normText(str(writeArgs, "text"))
		return count("posts", func(m map[string]any) bool {
			return str(m, "platform") == p && normText(str(m, "text")) == text
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
		title := normText(str(writeArgs, "title"))
		return count("tickets", func(m map[string]any) bool { return normText(str(m, "title")) == title })
	case tTicketsUpdateStatus:
		id, to := str(writeArgs, "ticket_id"), str(writeArgs, "to")
		return count("tickets", func(m map[string]any) bool {
			return str(m, "ticket_id") == id && str(m, "status") == to
		})
	case tTicketsAddComment:
		id, text := str(writeArgs, "ticket_id"), normText(str(writeArgs, "text"))
		return count("comments", func(m map[string]any) bool {
			return str(m, "ticket_id") == id && normText(str(m, "text")) == text
		})
	case tMailSend:
		to, subj := normText(str(writeArgs, "to")), normText(str(writeArgs, "subject"))
		return count("messages", func(m map[string]any) bool {
			return normText(str(m, "to")) == to && normText(str(m, "subject")) == subj
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
