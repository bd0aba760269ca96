package stdioguard

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// FuzzLineGuard: whatever a client writes on stdio, the guard never
// panics, passes on only JSON-RPC objects, and answers the rest.
func FuzzLineGuard(f *testing.F) {
	for _, s := range []string{initLine, "{", "[]", `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, "\n\n", `"str"`, "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n{bad"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		g := newLineGuard(io.NopCloser(bytes.NewReader(data)), &out, 256)
		passed, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(passed, []byte{'\n'}) {
			if len(line) == 0 {
				continue
			}
			if _, code, _, _ := checkMessage(line); code != 0 {
				t.Fatalf("passed on a bad message %q", line)
			}
			if len(line) > 257 {
				t.Fatalf("passed on a line of %d bytes over the limit", len(line))
			}
		}
		for _, line := range bytes.Split(out.Bytes(), []byte{'\n'}) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("answer is not JSON: %q", line)
			}
		}
	})
}
