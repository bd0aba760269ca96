package ledger

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// parquetPanic turns a panic of the Parquet library into a Problem naming
// the file. arrow-go panics on some malformed footers and pages (an
// unknown logical type, a truncated page header) instead of returning an
// error; a ledger is user input, and user input must never crash the
// process. Use it as `defer parquetPanic(path, &err)` at the boundary of
// a read.
func parquetPanic(path string, err *error) {
	if r := recover(); r != nil {
		*err = Problem{File: path, Msg: fmt.Sprintf("not a readable Parquet file: the Parquet reader failed on it (%v)", r)}
	}
}

// arrowSchemaKey is the key-value metadata entry under which Arrow writers
// store the Arrow schema of a Parquet file (an IPC schema message, base64).
const arrowSchemaKey = "ARROW:schema"

// checkArrowSchema checks the stored Arrow schema of a Parquet file before
// arrow-go decodes it. arrow-go trusts the lengths in the flatbuffer: a
// damaged vector length makes it allocate that many fields (tens of
// gigabytes, and the process dies) before it finds the buffer too short.
// So every length and offset the decoder follows is checked here against
// the bytes that are there. A file without a stored schema passes.
//
// The layout is the Arrow IPC format's Message and Schema tables
// (https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc,
// format/Message.fbs and format/Schema.fbs of the Arrow repository).
func checkArrowSchema(kv metadata.KeyValueMetadata) error {
	if v := kv.FindValue(arrowSchemaKey); v != nil {
		return checkStoredSchema(*v)
	}
	return nil
}

// checkStoredSchema checks the value of an ARROW:schema entry.
func checkStoredSchema(v string) error {
	// Decoded as arrow-go does (pqarrow getOriginSchema): padded base64
	// if the length allows it, else unpadded.
	var (
		b   []byte
		err error
	)
	if len(v)%4 == 0 {
		b, err = base64.StdEncoding.DecodeString(v)
	}
	if len(b) == 0 || err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return errors.New("not base64")
		}
	}
	// An encapsulated message: an optional continuation marker, the
	// metadata length, the Message flatbuffer, then the body.
	at := 4
	if len(b) < at {
		return errors.New("no message length")
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if uint32(n) == 0xFFFFFFFF {
		at = 8
		if len(b) < at {
			return errors.New("no message length")
		}
		n = int64(int32(binary.LittleEndian.Uint32(b[4:])))
	}
	if n < 4 || n > int64(len(b)-at) {
		return fmt.Errorf("message length %d, but %d bytes follow", n, len(b)-at)
	}
	c := fbCheck{b: b[at : at+int(n)], budget: int(n) / 4}
	return c.message(len(b) - at - int(n))
}

// fbCheck bounds-checks a flatbuffer the way its reader walks it.
type fbCheck struct {
	b []byte
	// budget is the number of tables the walk may still visit. Offsets
	// only point forward, so there is no cycle, but shared subtrees could
	// multiply the work; a real schema has fewer tables than 4-byte words.
	budget int
}

// fbTable is a checked table: its position, and its vtable's position
// and length in bytes.
type fbTable struct{ pos, vt, vlen int }

// The Arrow types (Schema.fbs, union Type) whose tables hold more than
// scalars.
const (
	fbTypeTimestamp = 10 // timezone: string
	fbTypeUnion     = 14 // typeIds: [int]
)

func (c *fbCheck) u32(at int) (int, error) {
	if at < 0 || at > len(c.b)-4 {
		return 0, fmt.Errorf("offset %d outside the %d-byte schema", at, len(c.b))
	}
	return int(binary.LittleEndian.Uint32(c.b[at:])), nil
}

// table checks the table at pos: its vtable lies inside the buffer.
func (c *fbCheck) table(pos int) (fbTable, error) {
	if c.budget--; c.budget < 0 {
		return fbTable{}, errors.New("more tables than the schema has room for")
	}
	so, err := c.u32(pos)
	if err != nil {
		return fbTable{}, err
	}
	vt := pos - int(int32(so))
	if vt < 0 || vt > len(c.b)-4 {
		return fbTable{}, fmt.Errorf("table at byte %d: vtable outside the schema", pos)
	}
	vlen := int(binary.LittleEndian.Uint16(c.b[vt:]))
	if vlen < 4 || vt+vlen > len(c.b) {
		return fbTable{}, fmt.Errorf("table at byte %d: vtable of %d bytes outside the schema", pos, vlen)
	}
	return fbTable{pos: pos, vt: vt, vlen: vlen}, nil
}

// field returns the position of slot i of t holding size bytes, or -1 if
// the slot is absent.
func (c *fbCheck) field(t fbTable, i, size int) (int, error) {
	e := 4 + 2*i
	if e+2 > t.vlen {
		return -1, nil
	}
	o := int(binary.LittleEndian.Uint16(c.b[t.vt+e:]))
	if o == 0 {
		return -1, nil
	}
	if at := t.pos + o; at+size <= len(c.b) {
		return at, nil
	}
	return 0, fmt.Errorf("table at byte %d: field %d outside the schema", t.pos, i)
}

// ref follows the offset in slot i of t; -1 if the slot is absent.
func (c *fbCheck) ref(t fbTable, i int) (int, error) {
	at, err := c.field(t, i, 4)
	if at < 0 || err != nil {
		return at, err
	}
	o, err := c.u32(at)
	return at + o, err
}

// vector checks the vector in slot i of t of elements of size bytes and
// returns the position of its first element and its length (0 if absent).
func (c *fbCheck) vector(t fbTable, i, size int) (start, n int, err error) {
	at, err := c.ref(t, i)
	if at < 0 || err != nil {
		return 0, 0, err
	}
	if n, err = c.u32(at); err != nil {
		return 0, 0, err
	}
	if start = at + 4; int64(n)*int64(size) > int64(len(c.b)-start) {
		return 0, 0, fmt.Errorf("a vector of %d elements at byte %d runs past the end of the %d-byte schema", n, at, len(c.b))
	}
	return start, n, nil
}

// tables checks the vector of tables in slot i of t, calling each on
// every element.
func (c *fbCheck) tables(t fbTable, i int, each func(fbTable) error) error {
	start, n, err := c.vector(t, i, 4)
	for k := 0; k < n && err == nil; k++ {
		var o, at = 0, start + 4*k
		if o, err = c.u32(at); err != nil {
			break
		}
		var e fbTable
		if e, err = c.table(at + o); err == nil {
			err = each(e)
		}
	}
	return err
}

// keyValues checks slot i of t, a custom_metadata vector of KeyValue
// tables (key and value strings).
func (c *fbCheck) keyValues(t fbTable, i int) error {
	return c.tables(t, i, func(kv fbTable) error {
		if _, _, err := c.vector(kv, 0, 1); err != nil {
			return err
		}
		_, _, err := c.vector(kv, 1, 1)
		return err
	})
}

// subtable checks the table that slot i of t refers to, if any.
func (c *fbCheck) subtable(t fbTable, i int) (fbTable, bool, error) {
	at, err := c.ref(t, i)
	if at < 0 || err != nil {
		return fbTable{}, false, err
	}
	s, err := c.table(at)
	return s, err == nil, err
}

// message checks the root Message table, whose header must be a Schema
// and whose body must fit in the rest bytes after the metadata.
func (c *fbCheck) message(rest int) error {
	root, err := c.u32(0)
	if err != nil {
		return err
	}
	m, err := c.table(root)
	if err != nil {
		return err
	}
	if at, err := c.field(m, 1, 1); err != nil {
		return err
	} else if at < 0 || c.b[at] != 1 { // MessageHeader.Schema
		return errors.New("not a schema message")
	}
	if at, err := c.field(m, 3, 8); err != nil {
		return err
	} else if at >= 0 {
		if body := int64(binary.LittleEndian.Uint64(c.b[at:])); body < 0 || body > int64(rest) {
			return fmt.Errorf("message body of %d bytes, but %d follow", body, rest)
		}
	}
	if err := c.keyValues(m, 4); err != nil {
		return err
	}
	s, ok, err := c.subtable(m, 2)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("a schema message without a schema")
	}
	if err := c.tables(s, 1, func(f fbTable) error { return c.arrowField(f, 0) }); err != nil {
		return err
	}
	if err := c.keyValues(s, 2); err != nil {
		return err
	}
	_, _, err = c.vector(s, 3, 8) // features
	return err
}

// maxNesting bounds the depth of nested fields, so that the checked
// decoder's recursion stays shallow.
const maxNesting = 64

// arrowField checks a Field table and its children.
func (c *fbCheck) arrowField(f fbTable, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("fields nested more than %d deep", maxNesting)
	}
	if _, _, err := c.vector(f, 0, 1); err != nil { // name
		return err
	}
	kind := -1
	if at, err := c.field(f, 2, 1); err != nil {
		return err
	} else if at >= 0 {
		kind = int(c.b[at])
	}
	if t, ok, err := c.subtable(f, 3); err != nil {
		return err
	} else if ok {
		switch kind {
		case fbTypeTimestamp:
			_, _, err = c.vector(t, 1, 1)
		case fbTypeUnion:
			_, _, err = c.vector(t, 1, 4)
		}
		if err != nil {
			return err
		}
	}
	if d, ok, err := c.subtable(f, 4); err != nil { // dictionary
		return err
	} else if ok {
		if _, _, err := c.subtable(d, 1); err != nil { // its index type
			return err
		}
	}
	if err := c.tables(f, 5, func(k fbTable) error { return c.arrowField(k, depth+1) }); err != nil {
		return err
	}
	return c.keyValues(f, 6)
}
