package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
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
func decodeLine(b []byte, r *RawEpisode, warn func(field, msg string)) (lineInfo, error) {
	d := jdec{b: b, order: episodeKeyOrder, top: true, col: -1}
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
				return d.withOrder(callKeyOrder, func() error {
					return decodeCall(&d, &r.Calls[len(r.Calls)-1], nestedWarn(warn, key, i))
				})
			})
		case "effects":
			info.raw = true
			return d.array(key, func(i int) error {
				r.Effects = append(r.Effects, Effect{})
				return d.withOrder(effectKeyOrder, func() error {
					return decodeEffect(&d, &r.Effects[len(r.Effects)-1], nestedWarn(warn, key, i))
				})
			})
		case "final_report":
			info.raw = true
			if d.peek() == 'n' && d.lit("null") {
				return nil
			}
			r.FinalReport = &FinalReport{}
			return d.withOrder(reportKeyOrder, func() error { return decodeReport(&d, r.FinalReport, key, warn) })
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
		if i == colEpisodeID || i == colPairKey {
			*r.s, err = d.str(field) // unique per row: no point looking it up
		} else {
			*r.s, err = d.strK(field)
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

func decodeCall(d *jdec, c *Call, warn nestedWarner) error {
	var have uint8
	err := d.object("", func(key string) error {
		f := key
		var err error
		switch key {
		case "episode_id":
			c.EpisodeID, err = d.str(f)
		case "seq":
			have |= 1
			c.Seq, err = d.int64v(f)
		case "t_s":
			have |= 2
			c.TS, err = d.float64v(f)
		case "tool":
			have |= 4
			c.Tool, err = d.strK(f)
		case "args":
			// Arguments are JSON text; accept them nested as well.
			if p := d.peek(); p == '{' || p == '[' {
				var t []byte
				t, err = d.skip(f, 0)
				c.Args = string(t)
			} else {
				c.Args, err = d.str(f)
			}
		case "idempotency_key":
			c.IdempotencyKey, err = d.str(f)
		case "outcome":
			have |= 8
			c.Outcome, err = d.strK(f)
		case "latency_s":
			c.LatencyS, err = d.float64v(f)
		default:
			warn.unknown(key)
			_, err = d.skip(f, 0)
		}
		return err
	})
	if err != nil {
		return err
	}
	for bit, name := range []string{"seq", "t_s", "tool", "outcome"} {
		if have&(1<<uint(bit)) == 0 {
			return &fieldError{name, "missing"}
		}
	}
	return nil
}

func decodeEffect(d *jdec, x *Effect, warn nestedWarner) error {
	var have uint8
	err := d.object("", func(key string) error {
		f := key
		var err error
		switch key {
		case "episode_id":
			x.EpisodeID, err = d.str(f)
		case "seq":
			have |= 1
			x.Seq, err = d.int64v(f)
		case "service":
			have |= 2
			x.Service, err = d.strK(f)
		case "tool":
			have |= 4
			x.Tool, err = d.strK(f)
		case "resource_id":
			x.ResourceID, err = d.str(f)
		case "idempotency_key":
			x.IdempotencyKey, err = d.str(f)
		case "attempt":
			x.Attempt, err = d.int64v(f)
		case "issued_at_s":
			x.IssuedAtS, err = d.float64v(f)
		case "committed_at_s":
			have |= 8
			x.CommittedAtS, err = d.float64v(f)
		case "source":
			have |= 16
			x.Source, err = d.strK(f)
		case "absorbed":
			x.Absorbed, err = d.boolv(f)
		case "focal":
			x.Focal, err = d.boolv(f)
		default:
			warn.unknown(key)
			_, err = d.skip(f, 0)
		}
		return err
	})
	if err != nil {
		return err
	}
	for bit, name := range []string{"seq", "service", "tool", "committed_at_s", "source"} {
		if have&(1<<uint(bit)) == 0 {
			return &fieldError{name, "missing"}
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

// appendString writes s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD so that the output is always valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			i++
			continue
		}
		if c < 0x80 {
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
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript; escape them.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

func appendKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = appendString(b, key)
	return append(b, ':')
}

// appendCol appends column i of e as a JSON value.
func appendCol(b []byte, e *Episode, i int) []byte {
	r := e.ref(i)
	switch {
	case r.s != nil:
		return appendString(b, *r.s)
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

// appendEpisodeJSON appends e as a graded JSONL row: the schema columns in
// order (cost_usd left out when nil), then the extra columns in the order
// given.
func appendEpisodeJSON(b []byte, e *Episode, extra []string) []byte {
	b = append(b, '{')
	first := true
	for i, c := range EpisodeColumns {
		if i == colCostUSD && e.CostUSD == nil {
			continue
		}
		b = appendKey(b, c.Name, first)
		first = false
		b = appendCol(b, e, i)
	}
	for _, k := range extra {
		// A line without the field (JSONL rows need not agree) stays
		// without it.
		if v, ok := e.Extra[k]; ok {
			b = appendKey(b, k, false)
			b = appendString(b, v)
		}
	}
	return append(b, '}', '\n')
}

// appendRawJSON appends r as a canonical raw JSONL line: the design
// columns in order, cost_usd if set, calls, effects, final_report, then
// extra fields sorted by name.
func appendRawJSON(b []byte, r *RawEpisode) []byte {
	b = append(b, '{')
	first := true
	e := &r.Episode
	for i, c := range EpisodeColumns {
		if !designCols.has(i) && !(i == colCostUSD && e.CostUSD != nil) {
			continue
		}
		b = appendKey(b, c.Name, first)
		first = false
		b = appendCol(b, e, i)
	}
	b = appendKey(b, "calls", first)
	b = append(b, '[')
	for j := range r.Calls {
		c := &r.Calls[j]
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		fst := true
		if c.EpisodeID != "" && c.EpisodeID != e.EpisodeID {
			b = appendKey(b, "episode_id", true)
			b = appendString(b, c.EpisodeID)
			fst = false
		}
		b = appendKey(b, "seq", fst)
		b = strconv.AppendInt(b, c.Seq, 10)
		b = appendKey(b, "t_s", false)
		b = appendFloat(b, c.TS)
		b = appendKey(b, "tool", false)
		b = appendString(b, c.Tool)
		b = appendKey(b, "args", false)
		b = appendString(b, c.Args)
		b = appendKey(b, "idempotency_key", false)
		b = appendString(b, c.IdempotencyKey)
		b = appendKey(b, "outcome", false)
		b = appendString(b, c.Outcome)
		b = appendKey(b, "latency_s", false)
		b = appendFloat(b, c.LatencyS)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendKey(b, "effects", false)
	b = append(b, '[')
	for j := range r.Effects {
		x := &r.Effects[j]
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		fst := true
		if x.EpisodeID != "" && x.EpisodeID != e.EpisodeID {
			b = appendKey(b, "episode_id", true)
			b = appendString(b, x.EpisodeID)
			fst = false
		}
		b = appendKey(b, "seq", fst)
		b = strconv.AppendInt(b, x.Seq, 10)
		b = appendKey(b, "service", false)
		b = appendString(b, x.Service)
		b = appendKey(b, "tool", false)
		b = appendString(b, x.Tool)
		b = appendKey(b, "resource_id", false)
		b = appendString(b, x.ResourceID)
		b = appendKey(b, "idempotency_key", false)
		b = appendString(b, x.IdempotencyKey)
		b = appendKey(b, "attempt", false)
		b = strconv.AppendInt(b, x.Attempt, 10)
		b = appendKey(b, "issued_at_s", false)
		b = appendFloat(b, x.IssuedAtS)
		b = appendKey(b, "committed_at_s", false)
		b = appendFloat(b, x.CommittedAtS)
		b = appendKey(b, "source", false)
		b = appendString(b, x.Source)
		b = appendKey(b, "absorbed", false)
		b = strconv.AppendBool(b, x.Absorbed)
		b = appendKey(b, "focal", false)
		b = strconv.AppendBool(b, x.Focal)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendKey(b, "final_report", false)
	if r.FinalReport == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = appendKey(b, "status", true)
		b = appendString(b, r.FinalReport.Status)
		b = appendKey(b, "uncertainties", false)
		b = append(b, '[')
		for j, u := range r.FinalReport.Uncertainties {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, u)
		}
		b = append(b, ']', '}')
	}
	if len(e.Extra) > 0 {
		for _, k := range sortedKeys(e.Extra) {
			b = appendKey(b, k, false)
			b = appendString(b, e.Extra[k])
		}
	}
	return append(b, '}', '\n')
}
