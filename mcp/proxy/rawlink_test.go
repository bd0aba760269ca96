package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"
)

// nopWriteCloser discards what the link writes.
type nopWriteCloser struct{ bytes.Buffer }

func (*nopWriteCloser) Close() error { return nil }

// chunked reads its data n bytes at a time.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// TestRawLinkDemux: the link takes the responses to its own requests out
// of the upstream's stream, wherever the reads cut it and however the
// upstream spells them (pretty-printed, braces and the id inside strings),
// and passes everything else to the SDK byte for byte, in order.
func TestRawLinkDemux(t *testing.T) {
	sdkPart := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"a } brace and \"limbo-proxy#1\" in a string"}]}}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n",
		// The upstream's own request that happens to carry a string id of
		// the link's form: a request, not a response.
		`{"jsonrpc":"2.0","id":"limbo-proxy#2","method":"sampling/createMessage","params":{}}` + "\n",
	}
	ours := []string{
		`{"jsonrpc":"2.0","id":"limbo-proxy#1","result":{"content":[{"type":"text","text":"one {"}],"isError":false}}` + "\n",
		"{\n  \"id\": \"limbo-proxy#2\",\n  \"jsonrpc\": \"2.0\",\n  \"result\": {\"content\": [], \"isError\": true}\n}\n",
		`{"jsonrpc":"2.0","id":"limbo-proxy#3","error":{"code":-32602,"message":"unknown tool"}}` + "\n",
	}
	stream := sdkPart[0] + ours[0] + sdkPart[1] + ours[1] + sdkPart[2] + sdkPart[3] + ours[2]
	for _, n := range []int{1, 2, 7, 64, 1 << 20} {
		l := newRawLink(io.NopCloser(&chunked{data: []byte(stream), n: n}), &nopWriteCloser{})
		chans := map[uint64]chan rawReply{}
		for i := uint64(1); i <= 3; i++ {
			chans[i] = make(chan rawReply, 1)
			l.waiting[i] = chans[i]
		}
		got, err := io.ReadAll(l)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(sdkPart, ""); string(got) != want {
			t.Errorf("reads of %d: the SDK got\n%s\nwant\n%s", n, got, want)
		}
		r1, r2, r3 := <-chans[1], <-chans[2], <-chans[3]
		if string(r1.result) != `{"content":[{"type":"text","text":"one {"}],"isError":false}` || resultIsError(r1.result) {
			t.Errorf("reads of %d: response 1: %s %v", n, r1.result, r1.err)
		}
		if string(r2.result) != `{"content": [], "isError": true}` || !resultIsError(r2.result) {
			t.Errorf("reads of %d: response 2: %s %v", n, r2.result, r2.err)
		}
		if r3.rpcErr == nil || r3.rpcErr.Code != -32602 || r3.rpcErr.Message != "unknown tool" {
			t.Errorf("reads of %d: response 3: %+v", n, r3)
		}
	}
}

// TestRawLinkCall: a call is written as one JSON-RPC request under the
// link's id, and answered from the stream; when the stream ends, waiting
// calls fail at once with the connection closed.
func TestRawLinkCall(t *testing.T) {
	upR, upW := io.Pipe() // the upstream's output
	var sent bytes.Buffer
	w := &lockedBuffer{b: &sent}
	l := newRawLink(upR, w)
	go func() { _, _ = io.Copy(io.Discard, l) }() // the SDK's reader
	done := make(chan rawReply, 1)
	go func() { done <- l.call(context.Background(), toolParams("echo", json.RawMessage(`{"name":"a"}`), "")) }()
	for !strings.Contains(w.String(), "\n") {
		time.Sleep(time.Millisecond)
	}
	if want := `{"jsonrpc":"2.0","id":"limbo-proxy#1","method":"tools/call","params":{"name":"echo","arguments":{"name":"a"}}}` + "\n"; w.String() != want {
		t.Errorf("sent %s, want %s", w.String(), want)
	}
	_, _ = upW.Write([]byte(`{"jsonrpc":"2.0","id":"limbo-proxy#1","result":{"content":[{"type":"text","text":"a"}]}}` + "\n"))
	if r := <-done; string(r.result) != `{"content":[{"type":"text","text":"a"}]}` {
		t.Errorf("answer %+v", r)
	}
	go func() { done <- l.call(context.Background(), toolParams("echo", nil, "")) }()
	for strings.Count(w.String(), "\n") < 2 {
		time.Sleep(time.Millisecond)
	}
	upW.Close()
	select {
	case r := <-done:
		if r.err == nil || !strings.Contains(r.err.Error(), "connection closed") {
			t.Errorf("after the end: %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call waits on a closed stream")
	}
	if r := l.call(context.Background(), nil); r.err == nil {
		t.Error("a call after the end was sent")
	}
}

// lockedBuffer is a buffer the link and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Close() error { return nil }

// FuzzRawLink: whatever an upstream writes, the link never panics, and a
// stream with none of the link's ids reaches the SDK unchanged, however
// the reads cut it.
func FuzzRawLink(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"id":"limbo-proxy#1","result":{"a":"}"}}` + "\n" + `{"jsonrpc":"2.0","method":"x"}`,
		"not json\n{\"a\":[1,2,{\"b\":\"\\\"\"}]}\n",
		`{"unterminated": "string`,
		"[]\n{}\n\"x\"\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		l := newRawLink(io.NopCloser(&chunked{data: bytes.Clone(data), n: int(n) + 1}), &nopWriteCloser{})
		l.waiting[1] = make(chan rawReply, 1)
		got, err := io.ReadAll(iotest.OneByteReader(l))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(rawIDPrefix)) && !bytes.Equal(got, data) {
			t.Fatalf("the SDK got %q of %q", got, data)
		}
		if len(got) > len(data) {
			t.Fatalf("the SDK got more than the stream: %q of %q", got, data)
		}
	})
}

// FuzzMembers: on valid JSON objects, member finds what encoding/json
// finds (the last of repeated keys), and isError what the SDK reads.
// (encoding/json replaces invalid UTF-8 in keys, which no member the
// proxy reads has.)
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":{"c":[1,"}"]},"a":"x"}`,
		`{"isError":true,"content":[]}`,
		`{ "k\u0065y" : "v" , "id" : null }`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]json.RawMessage
		if !utf8.Valid(data) || !json.Valid(data) || json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		for k, want := range m {
			got := member(data, k)
			var a, b bytes.Buffer
			if json.Compact(&a, got) != nil || json.Compact(&b, want) != nil || a.String() != b.String() {
				t.Fatalf("member %q of %s: %s, encoding/json %s", k, data, got, want)
			}
		}
		if (string(m["isError"]) == "true") != resultIsError(data) {
			t.Fatalf("isError of %s: %v", data, resultIsError(data))
		}
	})
}
