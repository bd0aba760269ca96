package sandbox

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/limbo-toolkit/limbo/ledger"
)

// appendCanon appends the canonical JSON of v (object keys sorted, no
// spaces) to b. It is hand-written because it runs on every call and
// encoding/json's reflection dominated an episode's cost. skip names an
// object key to leave out at the top level (the idempotency key).
func appendCanon(b []byte, v any, skip string) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return ledger.AppendJSONString(b, x)
	case float64:
		return appendNumber(b, x)
	case float32:
		return appendNumber(b, float64(x))
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanon(b, e, "")
		}
		return append(b, ']')
	case []map[string]any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanon(b, e, "")
		}
		return append(b, ']')
	case map[string]any:
		// Collect the members with their values (one map walk, no lookups)
		// and sort them by key; objects are small, so the buffer is on the
		// stack.
		var small [8]member
		ms := small[:0]
		for k, e := range x {
			if k != skip {
				ms = append(ms, member{k, e})
			}
		}
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
		b = append(b, '{')
		for i := range ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = ledger.AppendJSONString(b, ms[i].k)
			b = append(b, ':')
			b = appendCanon(b, ms[i].v, "")
		}
		return append(b, '}')
	}
	// Types validation rejects; encode as null so recording never fails.
	return append(b, "null"...)
}

// argKeys lists, per tool, every argument name a valid call may carry (its
// parameters, and idempotency_key on writes), sorted: the member order of
// the call's canonical JSON.
var argKeys = func() (out [nTools][]string) {
	for i := range defs {
		for _, p := range defs[i].params {
			out[i] = append(out[i], p.name)
		}
		if defs[i].write {
			out[i] = append(out[i], "idempotency_key")
		}
		slices.Sort(out[i])
	}
	return out
}()

// appendCanonArgs is appendCanon(b, args, "") for the arguments of a call
// to tool ti. When every argument is one the tool knows (any validated
// call), it looks the known names up in order, which spares walking and
// sorting the map on every call; otherwise it falls back to appendCanon.
func appendCanonArgs(b []byte, ti int, args map[string]any) []byte {
	keys := argKeys[ti]
	if len(args) > len(keys) {
		return appendCanon(b, args, "")
	}
	start := len(b)
	b = append(b, '{')
	n := 0
	for _, k := range keys {
		v, ok := args[k]
		if !ok {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = ledger.AppendJSONString(b, k)
		b = append(b, ':')
		b = appendCanon(b, v, "")
	}
	if n != len(args) {
		return appendCanon(b[:start], args, "")
	}
	return append(b, '}')
}

// member is one member of a JSON object.
type member struct {
	k string
	v any
}

func appendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// CanonicalArgs returns the canonical JSON of a call's arguments without
// the idempotency key: members sorted, numbers by value (1250 and 1250.0
// are one), the form in which every ledger of the sandbox records them.
func CanonicalArgs(args map[string]any) string { return canonString(args) }

// canonString returns the canonical JSON of args without the idempotency key.
func canonString(args map[string]any) string {
	var buf [256]byte
	return string(appendCanon(buf[:0], args, "idempotency_key"))
}

// normText normalises free text for logical identity (docs/simulation.md,
// Grading: "platform and normalised post text"): case-folded, whitespace collapsed.
func normText(s string) string {
	s = strings.TrimSpace(s)
	need := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c == '\t' || c == '\n' || c == '\r' || (c == ' ' && i+1 < len(s) && s[i+1] == ' ') || c >= utf8.RuneSelf {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	if ascii(s) {
		return normASCII(s)
	}
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normASCII is normText's ToLower-Fields-Join for ASCII text in one pass
// and one allocation (it runs on every write's identity). The spaces are
// those unicode.IsSpace reports in ASCII, as strings.Fields uses.
func normASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false // a space run separates two words
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// scalarString renders a row field or primary key as text for identity.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return string(appendCanon(nil, v, ""))
}

// identity returns the logical identity of a write (docs/simulation.md, Grading):
// operation plus semantic target. Batch writes have one identity per row;
// they are returned by rowIdentities instead, and identity returns "".
func identity(tool int, args map[string]any) string {
	s := func(k string) string { v, _ := args[k].(string); return v }
	switch tool {
	case tSocialPublish:
		return "social_publish|" + s("platform") + "|" + normText(s("text"))
	case tSocialDeletePost:
		return "social_delete_post|" + s("post_id")
	case tBillingCreateCharge:
		return "billing_create_charge|" + s("customer_id") + "|" + scalarString(args["amount_cents"])
	case tBillingRefundCharge:
		return "billing_refund_charge|" + s("charge_id")
	case tTicketsCreate:
		return "tickets_create|" + normText(s("title"))
	case tTicketsAddComment:
		return "tickets_add_comment|" + s("ticket_id") + "|" + normText(s("text"))
	case tTicketsUpdateStatus:
		return "tickets_update_status|" + s("ticket_id") + "|" + s("to")
	case tMailSend:
		return "mail_send|" + normText(s("to")) + "|" + normText(s("subject"))
	case tDataInsert:
		row, _ := args["row"].(map[string]any)
		return rowIdentity(s("table"), row["id"])
	case tDataUpsert:
		return rowIdentity(s("table"), args["key"])
	case tDeployTrigger:
		return "deploy_trigger|" + s("service") + "|" + s("env") + "|" + s("ref")
	}
	return ""
}

// rowIdentity is the identity of a row: table and primary key. Inserts and
// upserts of the same key are the same logical row.
func rowIdentity(table string, pk any) string {
	return "data|" + rowResource(table, pk)
}

// rowResource is the resource id of a row, "table/pk".
func rowResource(table string, pk any) string {
	return table + "/" + scalarString(pk)
}

// identities returns every logical identity a write touches: one for most
// writes, one per row for data_insert_many.
func identities(tool int, args map[string]any) []string {
	return appendIdentities(nil, tool, args)
}

// appendIdentities appends the identities of a write to dst, so that a
// caller with room for one (the common case) allocates no slice.
func appendIdentities(dst []string, tool int, args map[string]any) []string {
	if tool == tDataInsertMany {
		table, _ := args["table"].(string)
		rows := rowsOf(args["rows"])
		dst = slices.Grow(dst, len(rows))
		for _, r := range rows {
			dst = append(dst, rowIdentity(table, r["id"]))
		}
		return dst
	}
	if id := identity(tool, args); id != "" {
		return append(dst, id)
	}
	return dst
}

// rowsOf converts a validated rows argument to row maps.
func rowsOf(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}
