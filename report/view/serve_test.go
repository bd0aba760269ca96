package view_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/report/view"
)

// Serve answers on the listener and returns nil once its context ends.
func TestServeUntilDone(t *testing.T) {
	s, err := view.Build([]string{filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if want, _ := s.File("index.html"); !bytes.Equal(body, want) {
		t.Errorf("index: %d bytes, want %d", len(body), len(want))
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

// TestServeRules (issue 28 item 1): the served site answers only its own
// origin, by the rules of serve (localhttp.Guard), over a real loopback
// listener: a foreign Host (DNS rebinding) and a foreign Origin are 403,
// and the data files are refused to a page of another site or another
// server on this machine (<script src="http://127.0.0.1:PORT/data/list.js">
// read every argument the agents sent), while the site's own pages and a
// typed address get them.
func TestServeRules(t *testing.T) {
	s, err := view.Build([]string{filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunk := view.ChunkFile(0)
	if _, ok := s.File(chunk); !ok {
		t.Fatalf("the sample site has no %s", chunk)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	self := strings.TrimPrefix(srv.URL, "http://")
	port := self[strings.LastIndex(self, ":"):]
	type hdr = map[string]string
	tests := []struct {
		name, path string
		host       string
		headers    hdr
		want       int
	}{
		{"index", "/", "", nil, 200},
		{"list, typed", "/data/list.js", "", hdr{"Sec-Fetch-Site": "none"}, 200},
		{"list, own page", "/data/list.js", "", hdr{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Dest": "script", "Referer": srv.URL + "/"}, 200},
		{"chunk, own page", "/" + chunk, "", hdr{"Sec-Fetch-Site": "same-origin"}, 200},
		{"list, curl", "/data/list.js", "", nil, 200},
		{"list, localhost", "/data/list.js", "localhost" + port, nil, 200},
		{"list, old browser, own page", "/data/list.js", "", hdr{"Referer": srv.URL + "/index.html#m=x"}, 200},
		{"index linked from another site", "/", "", hdr{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "document"}, 200},

		{"foreign host", "/", "evil.example.com", nil, 403},
		{"foreign host with port", "/data/list.js", "evil.example.com" + port, hdr{"Sec-Fetch-Site": "same-origin"}, 403},
		{"foreign origin", "/data/list.js", "", hdr{"Origin": "http://evil.example.com"}, 403},
		{"null origin", "/", "", hdr{"Origin": "null"}, 403},
		{"list, cross-site script", "/data/list.js", "", hdr{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "script", "Sec-Fetch-Mode": "no-cors"}, 403},
		{"chunk, cross-site script", "/" + chunk, "", hdr{"Sec-Fetch-Site": "cross-site"}, 403},
		{"list, another local server", "/data/list.js", "", hdr{"Sec-Fetch-Site": "same-site"}, 403},
		{"list, old browser, other site", "/data/list.js", "", hdr{"Referer": "http://evil.example.com/page.html"}, 403},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
		if tt.host != "" {
			req.Host = tt.host
		}
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s: GET %s: status %d, want %d (%q)", tt.name, tt.path, res.StatusCode, tt.want, body)
			continue
		}
		if tt.want == 200 {
			file := strings.TrimPrefix(tt.path, "/")
			if file == "" {
				file = "index.html"
			}
			if want, _ := s.File(file); !bytes.Equal(body, want) {
				t.Errorf("%s: GET %s: %d bytes, want the site's %d", tt.name, tt.path, len(body), len(want))
			}
			if got := res.Header.Get("Cross-Origin-Resource-Policy"); got != "same-origin" {
				t.Errorf("%s: Cross-Origin-Resource-Policy %q, want same-origin", tt.name, got)
			}
		} else if bytes.Contains(body, []byte("episode")) {
			t.Errorf("%s: a refusal carries data: %q", tt.name, body)
		}
	}
}
