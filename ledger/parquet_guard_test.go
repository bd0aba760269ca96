package ledger

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A Parquet file whose stored Arrow schema is damaged is rejected with an
// error naming the file, before arrow-go decodes the schema: a damaged
// vector length made it allocate tens of gigabytes and kill the process.
// Each case overwrites one length in the toolkit's own ARROW:schema, in
// place (the base64 text keeps its length, so the footer stays valid).
func TestParquetDamagedArrowSchema(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeEpisodes(t, good, []*Episode{synthEpisode(1), synthEpisode(2)}, []string{"site"})
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	p, err := openPQ(good)
	if err != nil {
		t.Fatal(err)
	}
	enc := p.meta(arrowSchemaKey)
	p.close()
	at := bytes.Index(whole, []byte(enc))
	if enc == "" || at < 0 {
		t.Fatal("no ARROW:schema in the file's footer")
	}
	schema, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	// Positions inside the IPC message, found by walking the good schema:
	// the message follows the continuation marker and length (8 bytes).
	c := fbCheck{b: schema[8:], budget: len(schema)}
	root, _ := c.u32(0)
	msg, err := c.table(root)
	if err != nil {
		t.Fatal(err)
	}
	sch, _, _ := c.subtable(msg, 2)
	fieldsAt, _ := c.ref(sch, 1)
	firstAt := fieldsAt + 4
	off, _ := c.u32(firstAt)
	first, _ := c.table(firstAt + off)
	nameAt, _ := c.ref(first, 0)
	if fieldsAt < 0 || nameAt < 0 {
		t.Fatalf("unexpected layout of the toolkit's schema: fields %d name %d", fieldsAt, nameAt)
	}
	for _, tc := range []struct {
		name string
		at   int // byte of schema to overwrite
		val  uint32
		want string
	}{
		{"field count", 8 + fieldsAt, 1 << 30, "vector of 1073741824 elements"},
		{"name length", 8 + nameAt, 1 << 30, "vector of 1073741824 elements"},
		{"metadata length", 4, 1<<31 - 1, "message length 2147483647"},
		{"root offset", 8, 1 << 20, "outside the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(schema)
			binary.LittleEndian.PutUint32(bad[tc.at:], tc.val)
			file := bytes.Clone(whole)
			copy(file[at:], base64.StdEncoding.EncodeToString(bad))
			path := filepath.Join(t.TempDir(), "damaged.parquet")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := ReadEpisodes(path, ReadOptions{}, func(*Episode) error { return nil })
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("read a damaged schema without an error")
			}
			for _, s := range []string{path, arrowSchemaKey, tc.want} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("rejecting the file allocated %d bytes", n)
			}
		})
	}
}

// Random one- to three-byte damage of the toolkit's stored schema: a
// schema checkStoredSchema accepts is one arrow-go decodes without a large
// allocation (it may still reject it, or panic on it: openPQ recovers
// panics), and some damage is caught.
func TestStoredArrowSchemaDamage(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.parquet")
	writeEpisodes(t, good, []*Episode{synthEpisode(1)}, []string{"site"})
	p, err := openPQ(good)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := base64.StdEncoding.DecodeString(p.meta(arrowSchemaKey))
	p.close()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkStoredSchema(base64.StdEncoding.EncodeToString(schema)); err != nil {
		t.Fatalf("the toolkit's own schema: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	rejected := 0
	for k := range 3000 {
		b := bytes.Clone(schema)
		for range 1 + r.IntN(3) {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		if checkStoredSchema(base64.StdEncoding.EncodeToString(b)) != nil {
			rejected++
			continue
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		func() {
			defer func() { _ = recover() }()
			_, _ = flight.DeserializeSchema(b, memory.DefaultAllocator)
		}()
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
			t.Fatalf("damage %d: decoding an accepted schema of %d bytes allocated %d bytes", k, len(b), n)
		}
	}
	if rejected == 0 {
		t.Fatal("no damage was caught")
	}
	t.Logf("%d of 3000 damaged schemas rejected", rejected)
}
