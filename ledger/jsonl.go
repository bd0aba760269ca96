package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// lineInfo tells a raw line (calls, effects or final_report present) from
// a graded row.
type lineInfo struct {
	present colMask // schema columns present in the line
	raw     bool
	extras  []string // unknown top-level fields, in line order
}

// decodeLine decodes one JSONL line into r. Unknown top-level fields are
// kept in r.Extra (strings as they are, other values as JSON text); unknown
// fields inside calls, effects and final_report are reported through warn.
// strs (nil for none) is the file's cache of string values.
func decodeLine(b []byte, r *RawEpisode, strs *strCache, warn func(field, msg string)) (lineInfo, error) {
	d := jdec{b: b, order: episodeKeys, col: -1, strs: strs}
	var info lineInfo
	e := &r.Episode
	err := d.object("", func(key string) error {
		if key == "" {
			return d.errAt("(line)", "empty field name")
		}
		if i := d.col; i >= 0 {
			info.present |= 1 << uint(i)
			return decodeCol(&d, e, i, key)
		}
		switch key {
		case "calls":
			info.raw = true
			return d.array(key, func(i int) error {
				r.Calls = append(r.Calls, Call{})
				c := &r.Calls[len(r.Calls)-1]
				return d.withOrder(callKeys, func() error {
					return decodeNested(&d, nestedWarn(warn, key, i), &callTable, c.ref)
				})
			})
		case "effects":
			info.raw = true
			return d.array(key, func(i int) error {
				r.Effects = append(r.Effects, Effect{})
				x := &r.Effects[len(r.Effects)-1]
				return d.withOrder(effectKeys, func() error {
					return decodeNested(&d, nestedWarn(warn, key, i), &effectTable, x.ref)
				})
			})
		case "final_report":
			info.raw = true
			if d.peek() == 'n' && d.lit("null") {
				return nil
			}
			r.FinalReport = &FinalReport{}
			return d.withOrder(reportKeys, func() error { return decodeReport(&d, r.FinalReport, key, warn) })
		case "rules":
			info.raw = true
			return decodeRules(&d, r)
		}
		v, err := extraValue(&d, key)
		if err != nil {
			return err
		}
		if e.Extra == nil {
			e.Extra = map[string]string{}
		}
		e.Extra[key] = v
		info.extras = append(info.extras, key)
		return nil
	})
	if err != nil {
		return info, err
	}
	if d.peek() != 0 {
		return info, d.errAt("(line)", "unexpected text after the JSON object: "+d.what())
	}
	return info, nil
}

// decodeRules decodes a line's grading rules (rare, and nested deeper
// than the fast decoder goes): the JSON text, strictly.
func decodeRules(d *jdec, r *RawEpisode) error {
	if d.peek() == 'n' && d.lit("null") {
		r.Rules = nil
		return nil
	}
	t, err := d.skip("rules", 0)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	var rules Rules
	if err := dec.Decode(&rules); err != nil {
		return d.errAt("rules", "not grading rules: "+err.Error())
	}
	r.Rules = &rules
	return nil
}

// extraValue decodes an unknown top-level field: strings as they are, null
// as empty, anything else as its JSON text.
func extraValue(d *jdec, key string) (string, error) {
	switch d.peek() {
	case '"':
		return d.str(key)
	case 'n':
		if d.lit("null") {
			return "", nil
		}
	}
	t, err := d.skip(key, 0)
	return string(t), err
}

// decodeCol decodes the value of schema column i into e.
func decodeCol(d *jdec, e *Episode, i int, field string) error {
	r := e.ref(i)
	var err error
	switch {
	case r.s != nil:
		switch i {
		case colEpisodeID:
			*r.s, err = d.str(field) // unique per row: no point looking it up
		case colPairKey:
			*r.s, err = d.strC(field, i, false) // shared by a few rows
		default:
			*r.s, err = d.strC(field, i, true)
		}
	case r.i != nil:
		*r.i, err = d.int64v(field)
	case r.f != nil:
		*r.f, err = d.float64v(field)
	case r.b != nil:
		*r.b, err = d.boolv(field)
	case r.opt != nil:
		if d.peek() == 'n' && d.lit("null") {
			*r.opt = nil
			return nil
		}
		var v float64
		if v, err = d.float64v(field); err == nil {
			p := new(float64)
			*p = v
			*r.opt = p
		}
	}
	return err
}

// nestedWarn names a nested field only when there is something to say.
type nestedWarner struct {
	warn func(field, msg string)
	kind string
	i    int
}

func nestedWarn(warn func(field, msg string), kind string, i int) nestedWarner {
	return nestedWarner{warn, kind, i}
}

func (w nestedWarner) unknown(key string) {
	w.warn(w.kind+"["+strconv.Itoa(w.i)+"]."+key, "unknown field ignored")
}

// nestedTable is the calls or effects table as the JSON decoder reads
// its objects.
type nestedTable struct {
	cols []Column
	// required are the columns an object must have, in the order a
	// missing one is reported.
	required []int
	// vocab marks the string columns whose values are mostly in known
	// (enumerations, tool and service names), decoded without a copy.
	vocab colMask
	// args is the column holding JSON text, which may also come nested
	// as an object (-1 for none).
	args int
}

var callTable, effectTable nestedTable

func init() {
	callTable = newNestedTable(CallColumns, []string{"seq", "t_s", "tool", "outcome"}, []string{"tool", "outcome"}, "args")
	effectTable = newNestedTable(EffectColumns, []string{"seq", "service", "tool", "committed_at_s", "source"}, []string{"service", "tool", "source"}, "")
}

// newNestedTable describes cols by name: required and vocab as in
// nestedTable, args the column of JSON text ("" for none).
func newNestedTable(cols []Column, required, vocab []string, args string) nestedTable {
	index := func(name string) int {
		i := slices.IndexFunc(cols, func(c Column) bool { return c.Name == name })
		if i < 0 {
			panic("ledger: no column " + name)
		}
		return i
	}
	t := nestedTable{cols: cols, args: -1}
	if args != "" {
		t.args = index(args)
	}
	for _, n := range required {
		t.required = append(t.required, index(n))
	}
	for _, n := range vocab {
		t.vocab |= 1 << uint(index(n))
	}
	return t
}

// decodeNested decodes one call or effect object into the fields ref
// points at: every column of t that is present (those in t.required must
// be); an unknown key is warned about and skipped.
func decodeNested(d *jdec, warn nestedWarner, t *nestedTable, ref func(int) fieldRef) error {
	var have colMask
	err := d.object("", func(key string) error {
		i := d.col
		if i < 0 {
			warn.unknown(key)
			_, err := d.skip(key, 0)
			return err
		}
		have |= 1 << uint(i)
		r := ref(i)
		var err error
		switch {
		case r.i != nil:
			*r.i, err = d.int64v(key)
		case r.f != nil:
			*r.f, err = d.float64v(key)
		case r.b != nil:
			*r.b, err = d.boolv(key)
		case t.vocab.has(i):
			*r.s, err = d.strK(key)
		case i == t.args && (d.peek() == '{' || d.peek() == '['):
			// Arguments are JSON text; accept them nested as well.
			var b []byte
			b, err = d.skip(key, 0)
			*r.s = string(b)
		default:
			*r.s, err = d.str(key)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, i := range t.required {
		if !have.has(i) {
			return &fieldError{t.cols[i].Name, "missing"}
		}
	}
	return nil
}

func decodeReport(d *jdec, fr *FinalReport, field string, warn func(field, msg string)) error {
	haveStatus := false
	err := d.object(field, func(key string) error {
		f := field + "." + key
		switch key {
		case "status":
			haveStatus = true
			var err error
			fr.Status, err = d.strK(f)
			return err
		case "uncertainties":
			return d.array(f, func(int) error {
				s, err := d.str("")
				fr.Uncertainties = append(fr.Uncertainties, s)
				return err
			})
		}
		warn(f, "unknown field ignored")
		_, err := d.skip(f, 0)
		return err
	})
	if err == nil && !haveStatus {
		err = &fieldError{field + ".status", "missing"}
	}
	return err
}

// lineReader yields the lines of a JSONL file without a length limit other
// than maxLine, skipping a leading byte-order mark.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int
}

const maxLine = 256 << 20

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next line (without its newline) and its number; io.EOF
// at the end. The slice is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) > maxLine {
				lr.line++
				return nil, errors.New("line longer than 256 MiB")
			}
			continue
		}
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			chunk = lr.buf
		}
		if err == io.EOF && len(chunk) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		lr.line++
		if lr.line == 1 {
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		return chunk, nil
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Encoding.

// appendFloat formats v deterministically and round-trippably: the
// shortest decimal that parses back to v, in plain notation for
// magnitudes in [1e-6, 1e21) and exponent notation otherwise (as
// JavaScript and encoding/json do). NaN and ±Inf, which JSON lacks, are
// written as null.
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.AppendFloat(b, v, 'e', -1, 64)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// AppendJSONString appends s to b as a JSON string, as encoding/json
// writes it without HTML escaping: '"', '\\' and control characters
// escaped (\n, \r, \t by name, the others as \u00XX), invalid UTF-8
// replaced by \ufffd, and U+2028 and U+2029 (valid JSON, but line breaks
// to JavaScript) escaped. The ledger's JSONL writers and the sandbox's
// canonical JSON share it, so that both write the same bytes.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		default:
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but '"' and '\\' (one load where four comparisons were).
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jsonObj appends the members of a JSON object, minding the commas.
type jsonObj struct {
	b    []byte
	more bool // a member was written
}

func openObj(b []byte) jsonObj { return jsonObj{b: append(b, '{')} }

func (o *jsonObj) key(k string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = AppendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObj) str(k, v string) { o.key(k); o.b = AppendJSONString(o.b, v) }

// member starts a member whose key is written already: m is the quoted
// key and the colon (jsonKeys).
func (o *jsonObj) member(m string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = append(o.b, m...)
}

// col appends column i of e.
func (o *jsonObj) col(e *Episode, i int) {
	o.member(episodeMembers[i])
	o.b = appendRef(o.b, e.ref(i))
}

// jsonKeys are the columns' names as members' keys, quoted and with the
// colon: written once, not escaped anew on every row.
func jsonKeys(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = string(append(AppendJSONString(nil, c.Name), ':'))
	}
	return out
}

var (
	episodeMembers = jsonKeys(EpisodeColumns)
	callMembers    = jsonKeys(CallColumns)
	effectMembers  = jsonKeys(EffectColumns)
)

// end closes the object.
func (o *jsonObj) end() []byte { return append(o.b, '}') }

// appendRef appends the field r points at as a JSON value.
func appendRef(b []byte, r fieldRef) []byte {
	switch {
	case r.s != nil:
		return AppendJSONString(b, *r.s)
	case r.i != nil:
		return strconv.AppendInt(b, *r.i, 10)
	case r.f != nil:
		return appendFloat(b, *r.f)
	case r.b != nil:
		return strconv.AppendBool(b, *r.b)
	case *r.opt == nil:
		return append(b, "null"...)
	default:
		return appendFloat(b, **r.opt)
	}
}

// appendNested appends a call or effect x as a JSON object of its columns
// in order (members: their keys, jsonKeys); the episode_id (column 0) only where it differs from the
// episode's, which a raw line otherwise implies.
func appendNested[T any](b []byte, x *T, members []string, ref func(*T, int) fieldRef, episodeID string) []byte {
	o := openObj(b)
	for i, k := range members {
		r := ref(x, i)
		if i == 0 && (*r.s == "" || *r.s == episodeID) {
			continue
		}
		o.member(k)
		o.b = appendRef(o.b, r)
	}
	return o.end()
}

// appendEpisodeJSON appends e as a graded JSONL row: the schema columns in
// order (cost_usd left out when nil), then the extra columns in the order
// given.
func appendEpisodeJSON(b []byte, e *Episode, extra []string) []byte {
	o := openObj(b)
	for i := range EpisodeColumns {
		if (i != colCostUSD || e.CostUSD != nil) && !(sparseCols.has(i) && e.zeroAt(i)) {
			o.col(e, i)
		}
	}
	for _, k := range extra {
		// A line without the field (JSONL rows need not agree) stays
		// without it.
		if v, ok := e.Extra[k]; ok {
			o.str(k, v)
		}
	}
	return append(o.end(), '\n')
}

// appendRawJSON appends r as a canonical raw JSONL line: the design
// columns in order, cost_usd if set, calls, effects, final_report, then
// extra fields sorted by name.
func appendRawJSON(b []byte, r *RawEpisode) []byte {
	e := &r.Episode
	o := openObj(b)
	for i := range EpisodeColumns {
		if (designCols.has(i) || (i == colCostUSD && e.CostUSD != nil)) && !(sparseCols.has(i) && e.zeroAt(i)) {
			o.col(e, i)
		}
	}
	o.key("calls")
	o.b = append(o.b, '[')
	for j := range r.Calls {
		if j > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendNested(o.b, &r.Calls[j], callMembers, (*Call).ref, e.EpisodeID)
	}
	o.b = append(o.b, ']')
	o.key("effects")
	o.b = append(o.b, '[')
	for j := range r.Effects {
		if j > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendNested(o.b, &r.Effects[j], effectMembers, (*Effect).ref, e.EpisodeID)
	}
	o.b = append(o.b, ']')
	o.key("final_report")
	if fr := r.FinalReport; fr == nil {
		o.b = append(o.b, "null"...)
	} else {
		n := openObj(o.b)
		n.str("status", fr.Status)
		n.key("uncertainties")
		n.b = append(n.b, '[')
		for j, u := range fr.Uncertainties {
			if j > 0 {
				n.b = append(n.b, ',')
			}
			n.b = AppendJSONString(n.b, u)
		}
		n.b = append(n.b, ']')
		o.b = n.end()
	}
	if r.Rules != nil {
		// Maps marshal with sorted keys: canonical.
		if rb, err := json.Marshal(r.Rules); err == nil {
			o.key("rules")
			o.b = append(o.b, rb...)
		}
	}
	for _, k := range sortedKeys(e.Extra) {
		o.str(k, e.Extra[k])
	}
	return append(o.end(), '\n')
}
