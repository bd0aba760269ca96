package sandbox

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Limits of the request validator: an API's, generous for real use and
// bounded against abuse.
const (
	maxString    = 4096
	maxKeyLen    = 255
	maxFields    = 64
	maxFieldName = 128
	maxRows      = 500
	maxAmount    = 100_000_000_00 // one hundred million in cents
	maxWaitS     = 86400
)

// invalid formats a 400-like validation message as an API would.
func invalid(parts ...string) string {
	n := len("invalid request: ")
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, "invalid request: "...)
	for _, p := range parts {
		b = append(b, p...)
	}
	return string(b)
}

func quote(s string) string {
	return string(appendQuote(nil, s))
}

// appendQuote appends quote(s) to b.
func appendQuote(b []byte, s string) []byte {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.AppendQuote(b, s)
}

// notFound is the 404 message `<kind> "<id>" not found`, built in one
// allocation: agents poll for resources that are not there yet.
func notFound(kind, id string) string {
	var buf [128]byte
	b := append(buf[:0], kind...)
	b = append(b, ' ')
	b = appendQuote(b, id)
	b = append(b, " not found"...)
	return string(b)
}

// validate checks args against tool d. It returns "" when they are valid,
// else the message of a 400-like error. It never panics on any input.
func validate(d *toolDef, args map[string]any) string {
	// The parameters' values, gathered while looking for unknown arguments
	// so that each argument is looked up once (catalogue tools have at most
	// three parameters; any beyond the buffer are looked up below).
	var vals [4]any
	var seen [4]bool
	for k, v := range args {
		if k == "idempotency_key" && d.write {
			// Accepted on every write, like an HTTP header; honoured only where
			// the contract says (ignored elsewhere, as a real API ignores an
			// unknown header).
			s, ok := v.(string)
			if !ok {
				return invalid("idempotency_key must be a string")
			}
			if s == "" || len(s) > maxKeyLen || !utf8.ValidString(s) {
				return invalid("idempotency_key must be 1–255 characters")
			}
			continue
		}
		known := false
		for i := range d.params {
			if d.params[i].name == k {
				known = true
				if i < len(vals) {
					vals[i], seen[i] = v, true
				}
				break
			}
		}
		if !known {
			return invalid("unknown argument ", quote(k), " for ", d.name)
		}
	}
	for i := range d.params {
		p := &d.params[i]
		var v any
		var ok bool
		if i < len(vals) {
			v, ok = vals[i], seen[i]
		} else {
			v, ok = args[p.name]
		}
		if !ok || v == nil {
			if p.required {
				return invalid("missing required argument ", quote(p.name))
			}
			continue
		}
		if msg := checkValue(d, p, v); msg != "" {
			return msg
		}
	}
	switch d.id {
	case tDataUpsert:
		row := args["row"].(map[string]any)
		if id, ok := row["id"]; ok && scalarString(id) != args["key"].(string) {
			return invalid("row.id must equal key")
		}
	case tDataInsert:
		row := args["row"].(map[string]any)
		if !validPK(row["id"]) {
			return invalid("row must have a primary key field id (string or integer)")
		}
	}
	return ""
}

func validPK(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case float64:
		return x == math.Trunc(x) && math.Abs(x) < 1e15
	case int, int64:
		return true
	}
	return false
}

func checkValue(d *toolDef, p *paramDef, v any) string {
	switch p.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			return invalid("argument ", quote(p.name), " must be a string")
		}
		if s == "" {
			return invalid("argument ", quote(p.name), " must not be empty")
		}
		if len(s) > maxString {
			return invalid("argument ", quote(p.name), " is longer than ", strconv.Itoa(maxString), " bytes")
		}
		if !utf8.ValidString(s) {
			return invalid("argument ", quote(p.name), " is not valid UTF-8")
		}
		if p.enum != nil && !slices.Contains(p.enum, s) {
			return invalid("argument ", quote(p.name), " has unknown value ", quote(s))
		}
	case kInt:
		f, ok := number(v)
		if !ok || f != math.Trunc(f) {
			return invalid("argument ", quote(p.name), " must be an integer")
		}
		if p.positive && f <= 0 {
			return invalid("argument ", quote(p.name), " must be positive")
		}
		if math.Abs(f) > maxAmount {
			return invalid("argument ", quote(p.name), " is out of range")
		}
	case kNumber:
		f, ok := number(v)
		if !ok {
			return invalid("argument ", quote(p.name), " must be a number")
		}
		if f < 0 || f > maxWaitS {
			return invalid("argument ", quote(p.name), " must be between 0 and 86400")
		}
	case kObject:
		m, ok := v.(map[string]any)
		if !ok {
			return invalid("argument ", quote(p.name), " must be an object")
		}
		if d.oracle {
			return "" // checked against the named tool by the oracle
		}
		return checkRow(p.name, m)
	case kRows:
		rows, ok := v.([]any)
		if !ok {
			if rm, ok2 := v.([]map[string]any); ok2 {
				rows = make([]any, len(rm))
				for i := range rm {
					rows[i] = rm[i]
				}
			} else {
				return invalid("argument ", quote(p.name), " must be an array of objects")
			}
		}
		if len(rows) == 0 || len(rows) > maxRows {
			return invalid("argument ", quote(p.name), " must hold 1–500 rows")
		}
		for i, r := range rows {
			m, ok := r.(map[string]any)
			if !ok {
				return invalid("rows[", strconv.Itoa(i), "] must be an object")
			}
			if msg := checkRow("rows["+strconv.Itoa(i)+"]", m); msg != "" {
				return msg
			}
			if !validPK(m["id"]) {
				return invalid("rows[", strconv.Itoa(i), "] must have a primary key field id (string or integer)")
			}
		}
	}
	return ""
}

// checkRow checks a flat object of scalar fields (a row or a filter).
func checkRow(name string, m map[string]any) string {
	if len(m) > maxFields {
		return invalid("argument ", quote(name), " has more than 64 fields")
	}
	for k, fv := range m {
		if k == "" || len(k) > maxFieldName || !utf8.ValidString(k) {
			return invalid("argument ", quote(name), " has an invalid field name")
		}
		switch x := fv.(type) {
		case nil, bool:
		case string:
			if len(x) > maxString || !utf8.ValidString(x) {
				return invalid("field ", quote(k), " of ", quote(name), " is too long or not UTF-8")
			}
		default:
			f, ok := number(fv)
			if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
				return invalid("field ", quote(k), " of ", quote(name), " must be a string, number, boolean or null")
			}
		}
	}
	return ""
}

// number converts the numeric types a decoded or hand-built argument may
// carry; NaN and infinities are rejected.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
