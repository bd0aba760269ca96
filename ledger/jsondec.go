package ledger

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A small JSON decoder for ledger lines. It is hand-written rather than
// encoding/json because the ledger needs what encoding/json does not give
// together: errors naming the field, booleans written as 1/0, duplicate
// keys rejected, unknown top-level fields kept as extra columns, and speed
// (a raw ledger line holds dozens of nested objects).

// fieldError is a decoding error in one field of a line.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

type jdec struct {
	b []byte
	i int
	// order is the key order the current object is expected in (the
	// canonical one); next indexes it. A key that matches the prediction
	// is recognised without a map lookup.
	order keyOrder
	next  int
	// col is the column of the last key read by key, in the current
	// object's table (-1 if none).
	col int
	// strs, if set, remembers the file's recent string values per column.
	strs *strCache
	// pos is the index in order of the last key read by key (-1 if not
	// there), which object uses for its duplicate check.
	pos int
}

// strCache remembers recent values of each episode string column of a
// file in a small direct-mapped cache, so that the values repeated from
// row to row (models, templates, tasks) are neither looked up in a map
// nor copied again.
type strCache struct {
	v [64][8]string
}

// lookup returns the cached value equal to raw, if any.
func (c *strCache) lookup(col int, raw []byte) (string, bool) {
	s := c.v[col][slot(raw)&7]
	return s, s == string(raw)
}

func (c *strCache) put(col int, s string) { c.v[col][slot(s)&7] = s }

// strC decodes the value of episode column col through d.strs when set,
// then (on a miss) with strK, or str when known is false (values not in
// the global table of known strings).
func (d *jdec) strC(field string, col int, known bool) (string, error) {
	slow := d.str
	if known {
		slow = d.strK
	}
	if d.strs == nil || d.peek() != '"' {
		return slow(field)
	}
	end := bytesIndexQuoteOrEscape(d.b[d.i+1:])
	if end < 0 || d.b[d.i+1+end] != '"' {
		return slow(field)
	}
	// A hit is exact: raw has no escapes and equals a value decoded
	// before, so it decodes to itself.
	if v, ok := d.strs.lookup(col, d.b[d.i+1:d.i+1+end]); ok {
		d.i += end + 2
		return v, nil
	}
	v, err := slow(field)
	if err == nil {
		d.strs.put(col, v)
	}
	return v, err
}

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (d *jdec) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

func (d *jdec) errAt(field, msg string) error {
	if field == "" {
		field = "(line)"
	}
	return &fieldError{field, msg}
}

// unexpected describes what was found where something else was expected.
func (d *jdec) unexpected(field, want string) error {
	if d.i >= len(d.b) {
		return d.errAt(field, "unexpected end of line (truncated?) where "+want+" was expected")
	}
	return d.errAt(field, "expected "+want+", found "+d.what())
}

// what names the JSON value starting at d.i.
func (d *jdec) what() string {
	switch c := d.b[d.i]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c >= 0x80:
		return "invalid UTF-8 or a non-JSON character"
	default:
		return strconv.Quote(string(c))
	}
}

func (d *jdec) expect(field string, c byte, want string) error {
	if d.peek() != c {
		return d.unexpected(field, want)
	}
	d.i++
	return nil
}

// known holds the strings that recur in every line (enumeration values,
// tool and service names), so that decoding them does not allocate.
var known = map[string]string{}

func init() {
	for _, en := range []Enum{FaultModes, Contracts, Recoveries, FirstMoves, Outcomes, Sources, WriteClasses, ReadPaths, Statuses, Cues, AgentFaultNames, CrashWindows, GuardNames} {
		for _, v := range en.Values {
			known[v] = v
		}
	}
	for _, vs := range [][]string{PaperWriteTools, PaperOtherTools, PaperServices, PaperPlatforms, PaperHarnesses, PaperConditions, PaperExperiments, ReplayExperiments,
		{""}} { // platform is empty off social writes
		for _, v := range vs {
			known[v] = v
		}
	}
}

// knownKeys holds the field names of the ledger, so that decoding an
// object's keys does not allocate.
var knownKeys = map[string]string{}

// keyOrder is the key order an object is expected in (the canonical one,
// as RawWriter and the episode writers emit it), with each key's index in
// its column table (-1 for a key that is not a column).
type keyOrder struct {
	names []string
	cols  []int
}

func (o *keyOrder) add(name string, col int) {
	o.names = append(o.names, name)
	o.cols = append(o.cols, col)
}

// tableKeys is the key order of a call or effect object: its columns
// after episode_id, which a raw line mostly leaves out (it inherits the
// episode's), and episode_id last.
func tableKeys(cols []Column) keyOrder {
	var o keyOrder
	for i := 1; i < len(cols); i++ {
		o.add(cols[i].Name, i)
	}
	o.add(cols[0].Name, 0)
	return o
}

var episodeKeys, callKeys, effectKeys, reportKeys keyOrder

func init() {
	for i, c := range EpisodeColumns {
		if designCols.has(i) {
			episodeKeys.add(c.Name, i)
		}
	}
	// A graded row continues with the outcome columns; a raw one with
	// calls, effects and the final report.
	for i, c := range EpisodeColumns {
		if !designCols.has(i) {
			episodeKeys.add(c.Name, i)
		}
	}
	callKeys, effectKeys = tableKeys(CallColumns), tableKeys(EffectColumns)
	reportKeys.add("status", -1)
	reportKeys.add("uncertainties", -1)
	for _, cols := range [][]Column{CallColumns, EffectColumns, EpisodeColumns} {
		for _, c := range cols {
			knownKeys[c.Name] = c.Name
		}
	}
	for _, k := range []string{"calls", "effects", "final_report", "rules", "status", "uncertainties"} {
		knownKeys[k] = k
	}
}

// key decodes an object key, setting d.pos and d.col.
func (d *jdec) key(field string) (string, error) {
	if d.peek() == '"' {
		if end := bytesIndexQuoteOrEscape(d.b[d.i+1:]); end >= 0 && d.b[d.i+1+end] == '"' {
			raw := d.b[d.i+1 : d.i+1+end]
			if o := d.order.names; d.next < len(o) && string(raw) == o[d.next] {
				d.i += end + 2
				d.pos = d.next
				d.next++
				d.col = d.order.cols[d.pos]
				return o[d.pos], nil
			}
			if k, ok := knownKeys[string(raw)]; ok {
				d.i += end + 2
				// Resynchronise the prediction (an optional field was
				// left out, or fields come in another order).
				d.pos = -1
				o := d.order.names
				for j := d.next; j < len(o); j++ {
					if o[j] == k {
						d.next = j + 1
						d.pos = j
						break
					}
				}
				if d.pos < 0 {
					d.pos = slices.Index(o, k)
				}
				d.setCol()
				return k, nil
			}
		}
	}
	// Escaped or unknown key.
	k, err := d.str(field + "(key)")
	d.pos = -1
	if err == nil {
		d.pos = slices.Index(d.order.names, k)
	}
	d.setCol()
	return k, err
}

// setCol sets d.col from d.pos.
func (d *jdec) setCol() {
	d.col = -1
	if d.pos >= 0 {
		d.col = d.order.cols[d.pos]
	}
}

// withOrder runs f with the key prediction set to order, restoring the
// enclosing object's afterwards.
func (d *jdec) withOrder(order keyOrder, f func() error) error {
	o, n := d.order, d.next
	d.order, d.next = order, 0
	err := f()
	d.order, d.next = o, n
	return err
}

// strK is str for fields whose values are usually in known.
func (d *jdec) strK(field string) (string, error) {
	if d.peek() == '"' {
		if end := bytesIndexQuoteOrEscape(d.b[d.i+1:]); end >= 0 && d.b[d.i+1+end] == '"' {
			if v, ok := known[string(d.b[d.i+1:d.i+1+end])]; ok {
				d.i += end + 2
				return v, nil
			}
		}
	}
	return d.str(field)
}

func bytesIndexQuoteOrEscape(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

// str decodes a JSON string. The fast path returns a copy of the bytes
// between the quotes when there are no escapes.
func (d *jdec) str(field string) (string, error) {
	if d.peek() != '"' {
		return "", d.unexpected(field, "a string")
	}
	d.i++
	start := d.i
	ascii := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !ascii && !utf8.Valid(s) {
				return "", d.errAt(field, "invalid UTF-8 in string")
			}
			return string(s), nil
		case c == '\\':
			return d.strSlow(field, start)
		case c < 0x20:
			return "", d.errAt(field, "control character in string (must be escaped)")
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	return "", d.errAt(field, "unexpected end of line (truncated?) inside a string")
}

// strSlow decodes a string with escapes, from its first byte at start.
func (d *jdec) strSlow(field string, start int) (string, error) {
	out := make([]byte, 0, d.i-start+16)
	d.i = start
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(out) {
				return "", d.errAt(field, "invalid UTF-8 in string")
			}
			return string(out), nil
		case c < 0x20:
			return "", d.errAt(field, "control character in string (must be escaped)")
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			break
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errAt(field, "bad \\u escape in string")
			}
			if r >= 0xD800 && r < 0xDC00 {
				// A high surrogate must be followed by a low one.
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					d.i += 2
					r2, ok := d.hex4()
					if !ok || r2 < 0xDC00 || r2 >= 0xE000 {
						return "", d.errAt(field, "invalid UTF-16 surrogate pair in string")
					}
					r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
				} else {
					return "", d.errAt(field, "lone UTF-16 surrogate in string")
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				return "", d.errAt(field, "lone UTF-16 surrogate in string")
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", d.errAt(field, "invalid escape \\"+string(e)+" in string")
		}
	}
	return "", d.errAt(field, "unexpected end of line (truncated?) inside a string")
}

func (d *jdec) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// numLit scans a JSON number and returns its text; isInt reports whether it
// has neither fraction nor exponent.
func (d *jdec) numLit(field string) (lit []byte, isInt bool, err error) {
	d.ws()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	if digits() == 0 {
		d.i = start
		return nil, false, d.unexpected(field, "a number")
	}
	if d.b[intStart] == '0' && d.i-intStart > 1 {
		return nil, false, d.errAt(field, "number with a leading zero")
	}
	isInt = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		isInt = false
		if digits() == 0 {
			return nil, false, d.errAt(field, "malformed number (no digits after '.')")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		isInt = false
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false, d.errAt(field, "malformed number (no digits in exponent)")
		}
	}
	return d.b[start:d.i], isInt, nil
}

// lit consumes the literal word (true, false, null) if it is next.
func (d *jdec) lit(word string) bool {
	d.ws()
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

func (d *jdec) int64v(field string) (int64, error) {
	lit, isInt, err := d.numLit(field)
	if err != nil {
		return 0, err
	}
	if isInt {
		v, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			return 0, d.errAt(field, "integer "+string(lit)+" out of range")
		}
		return v, nil
	}
	// 3.0 or 1e3 are integers written as floats; accept them exactly.
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, d.errAt(field, "expected an integer, found "+string(lit))
	}
	return int64(f), nil
}

// float64v decodes a number; null decodes as NaN (undefined).
func (d *jdec) float64v(field string) (float64, error) {
	if d.peek() == 'n' && d.lit("null") {
		return math.NaN(), nil
	}
	lit, _, err := d.numLit(field)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return 0, d.errAt(field, "number "+string(lit)+" out of range")
	}
	return f, nil
}

// boolv decodes true/false or 1/0.
func (d *jdec) boolv(field string) (bool, error) {
	switch d.peek() {
	case 't':
		if d.lit("true") {
			return true, nil
		}
	case 'f':
		if d.lit("false") {
			return false, nil
		}
	case '0', '1':
		if d.i+1 >= len(d.b) || !isNumByte(d.b[d.i+1]) {
			v := d.b[d.i] == '1'
			d.i++
			return v, nil
		}
	}
	return false, d.unexpected(field, "a boolean (true, false, 1 or 0)")
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'
}

// skip consumes any JSON value and returns its text.
func (d *jdec) skip(field string, depth int) ([]byte, error) {
	if depth > 64 {
		return nil, d.errAt(field, "nested too deeply")
	}
	c := d.peek()
	start := d.i
	switch {
	case c == '"':
		if _, err := d.str(field); err != nil {
			return nil, err
		}
	case c == '{':
		d.i++
		if d.peek() == '}' {
			d.i++
			break
		}
		for {
			if _, err := d.str(field); err != nil {
				return nil, err
			}
			if err := d.expect(field, ':', "':'"); err != nil {
				return nil, err
			}
			if _, err := d.skip(field, depth+1); err != nil {
				return nil, err
			}
			if d.peek() == ',' {
				d.i++
				continue
			}
			if err := d.expect(field, '}', "',' or '}'"); err != nil {
				return nil, err
			}
			break
		}
	case c == '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			break
		}
		for {
			if _, err := d.skip(field, depth+1); err != nil {
				return nil, err
			}
			if d.peek() == ',' {
				d.i++
				continue
			}
			if err := d.expect(field, ']', "',' or ']'"); err != nil {
				return nil, err
			}
			break
		}
	case c == 't':
		if !d.lit("true") {
			return nil, d.unexpected(field, "a JSON value")
		}
	case c == 'f':
		if !d.lit("false") {
			return nil, d.unexpected(field, "a JSON value")
		}
	case c == 'n':
		if !d.lit("null") {
			return nil, d.unexpected(field, "a JSON value")
		}
	default:
		if _, _, err := d.numLit(field); err != nil {
			return nil, err
		}
	}
	return d.b[start:d.i], nil
}

// object iterates over the members of a JSON object, calling member with
// each key while d is positioned at its value. Duplicate keys are errors.
func (d *jdec) object(field string, member func(key string) error) error {
	if err := d.expect(field, '{', "an object"); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.i++
		return nil
	}
	// Keys of the expected order are checked for duplicates by their
	// position in it; others (few) by a linear search, then a map.
	var seenPos uint64
	var seen [48]string
	n := 0
	var seenMap map[string]bool
	for {
		key, err := d.key(field)
		if err != nil {
			if d.i < len(d.b) && d.b[d.i] != '"' {
				return d.unexpected(field, "a field name")
			}
			return err
		}
		if p := d.pos; p >= 0 && p < 64 {
			if seenPos&(1<<uint(p)) != 0 {
				return d.errAt(join(field, key), "duplicate field")
			}
			seenPos |= 1 << uint(p)
		} else if n < len(seen) {
			for _, k := range seen[:n] {
				if k == key {
					return d.errAt(join(field, key), "duplicate field")
				}
			}
			seen[n] = key
			n++
		} else {
			if seenMap == nil {
				seenMap = map[string]bool{}
				for _, k := range seen {
					seenMap[k] = true
				}
			}
			if seenMap[key] {
				return d.errAt(join(field, key), "duplicate field")
			}
			seenMap[key] = true
		}
		if err := d.expect(join(field, key), ':', "':'"); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.unexpected(join(field, key), "',' or '}' after the value")
		}
	}
}

// array iterates over the elements of a JSON array (null is empty). An
// element's error is prefixed with field[i].
func (d *jdec) array(field string, elem func(i int) error) error {
	if d.peek() == 'n' && d.lit("null") {
		return nil
	}
	if err := d.expect(field, '[', "an array"); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			if fe, ok := err.(*fieldError); ok {
				p := field + "[" + strconv.Itoa(i) + "]"
				if fe.field == "(line)" || fe.field == "" {
					fe.field = p
				} else {
					fe.field = p + "." + fe.field
				}
			}
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.unexpected(field, "',' or ']'")
		}
	}
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}
