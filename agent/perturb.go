package agent

import (
	"maps"
	"math/rand/v2"
	"strconv"
)

// Re-synthesised arguments (docs/simulation.md, Re-synthesised
// arguments). A write that a model writes a second time (after a re-plan,
// in a retried run, in a sub-agent or a second worker) repeats its first
// arguments exactly only some of the time: agents repeat their arguments
// exactly in about 69% of identical runs. The rest differ in what a model
// is free to vary without changing the action:
//
//   - reworded: free text gets a lead-in or a closing (a post, a comment,
//     a mail or ticket body, a charge description);
//   - amount: a charge description restates the amount in its own words;
//   - renamed: an optional field of a row is renamed (qty → quantity).
//
// Reordering fields is no perturbation: every ledger and guard here
// compares canonical JSON, in which member order does not exist. A write
// every argument of which names its action (a deployment, a refund, a
// status change) has nothing to vary and is always repeated exactly; the
// perturbation rate applies to the writes that have something.
//
// The perturbed text keeps the action: a lead-in or a closing adds one or
// two words, so a rewording stays well above sandbox.SimilarText.

// Perturbation is the perturbation model's one parameter.
type Perturbation struct {
	// Rate is the probability that a re-synthesised write's arguments
	// differ from its first synthesis (0.31: 1 − 0.69).
	Rate float64
}

// How free text is reworded, and how a row field is renamed: the choices
// a draw picks among.
var (
	leadIns  = []string{"Update: ", "Heads up: ", "Note: ", "FYI: "}
	closings = []string{" Thanks!", " More soon.", " Details to follow.", " Cheers."}
	renames  = map[string]string{"qty": "quantity", "email": "email_address", "region": "area", "status": "state", "source": "origin", "sku": "item_sku", "name": "full_name", "customer_id": "customer"}
)

// textFields are, per write, the arguments holding free text a model
// writes in its own words (the identity rules treat some of them by
// similarity; sandbox.SimilarText).
var textFields = map[string][]string{
	"social_publish":        {"text"},
	"tickets_add_comment":   {"text"},
	"tickets_create":        {"body"},
	"mail_send":             {"body"},
	"billing_create_charge": {"description"},
}

// rowTools are the writes whose rows are objects with optional fields.
var rowTools = map[string]bool{"data_insert": true, "data_insert_many": true, "data_upsert": true}

// Resynthesize returns the arguments of a second synthesis of a write of
// tool whose first synthesis had args, drawing from r: the same arguments
// with probability 1 − Rate (or when the write has nothing to vary), else
// one perturbation of a kind the write admits. kind says which ("" when
// the arguments are repeated exactly). args is not modified.
func (m Perturbation) Resynthesize(tool string, args map[string]any, r *rand.Rand) (out map[string]any, kind string) {
	u := r.Float64()
	var kindsN [3]string
	kinds := perturbKinds(kindsN[:0], tool, args)
	if u >= m.Rate || len(kinds) == 0 {
		return args, ""
	}
	kind = kinds[r.IntN(len(kinds))]
	out = maps.Clone(args)
	pick := r.Float64()
	switch kind {
	case "reworded":
		f := textFields[tool][0]
		s, _ := out[f].(string)
		if pick < 0.5 {
			out[f] = leadIns[int(pick*2*float64(len(leadIns)))] + s
		} else {
			out[f] = s + closings[int((pick-0.5)*2*float64(len(closings)))]
		}
	case "amount":
		s, _ := out["description"].(string)
		out["description"] = s + " (" + dollars(out["amount_cents"]) + ")"
	case "renamed":
		renameField(tool, out, pick)
	}
	return out, kind
}

// perturbKinds appends to out the perturbations a write admits.
func perturbKinds(out []string, tool string, args map[string]any) []string {
	if fs := textFields[tool]; len(fs) > 0 {
		if s, _ := args[fs[0]].(string); s != "" {
			out = append(out, "reworded")
		}
	}
	if tool == "billing_create_charge" {
		if _, ok := args["amount_cents"].(float64); ok {
			out = append(out, "amount")
		}
	}
	var fs [8]string
	if rowTools[tool] && len(renamable(fs[:0], tool, args)) > 0 {
		out = append(out, "renamed")
	}
	return out
}

// renamable appends to out, sorted by the rename table's order, the
// fields of the write's (first) row that a model may rename: not the
// primary key.
func renamable(out []string, tool string, args map[string]any) []string {
	row := firstRow(tool, args)
	for _, f := range []string{"qty", "email", "region", "status", "source", "sku", "name", "customer_id"} {
		if _, ok := row[f]; ok {
			out = append(out, f)
		}
	}
	return out
}

func firstRow(tool string, args map[string]any) map[string]any {
	switch tool {
	case "data_insert", "data_upsert":
		r, _ := args["row"].(map[string]any)
		return r
	case "data_insert_many":
		if rows := rowList(args["rows"]); len(rows) > 0 {
			r, _ := rows[0].(map[string]any)
			return r
		}
	}
	return nil
}

// renameField renames one optional field in every row of the write (a
// model that names a field otherwise does so for each row).
func renameField(tool string, args map[string]any, pick float64) {
	var fsN [8]string
	fs := renamable(fsN[:0], tool, args)
	f := fs[min(int(pick*float64(len(fs))), len(fs)-1)]
	to := renames[f]
	rename := func(r map[string]any) map[string]any {
		c := maps.Clone(r)
		if v, ok := c[f]; ok {
			delete(c, f)
			c[to] = v
		}
		return c
	}
	switch tool {
	case "data_insert", "data_upsert":
		args["row"] = rename(args["row"].(map[string]any))
	case "data_insert_many":
		rows := rowList(args["rows"])
		out := make([]any, len(rows))
		for i, r := range rows {
			if m, ok := r.(map[string]any); ok {
				out[i] = rename(m)
			} else {
				out[i] = r
			}
		}
		args["rows"] = out
	}
}

// dollars writes an amount of cents as a model restating it would:
// "49.00 USD".
func dollars(v any) string {
	c, _ := v.(float64)
	n := int64(c)
	return strconv.FormatInt(n/100, 10) + "." + strconv.FormatInt(n%100/10, 10) + strconv.FormatInt(n%10, 10) + " USD"
}
