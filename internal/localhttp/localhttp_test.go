package localhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1", true},
		{"127.1.2.3:1", true},
		{"[::1]:8080", true},
		{"[::1]", true},
		{"::1", true},
		{"localhost:80", true},
		{"LocalHost", true},
		{"0.0.0.0:80", false},
		{":80", false},
		{"", false},
		{"evil.example.com", false},
		{"evil.example.com:8080", false},
		{"127.0.0.1.evil.example:80", false},
		{"localhost.evil.example", false},
		{"192.0.2.1:80", false},
		{"[::ffff:127.0.0.1]:80", true}, // IPv4-mapped loopback
	}
	for _, tt := range tests {
		if got := IsLoopback(tt.addr); got != tt.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

// Issue 28 item 11: a missing port is said to be missing (it was "not a
// loopback address"), and a port beyond 65535 is refused before listening.
func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr   string
		remote bool
		want   string // "" for accepted
	}{
		{"127.0.0.1:8080", false, ""},
		{"127.0.0.1:0", false, ""},
		{"[::1]:65535", false, ""},
		{"localhost:1", false, ""},
		{"0.0.0.0:8080", true, ""},
		{"127.0.0.1", false, "the port is missing"},
		{"localhost", true, "the port is missing"},
		{"[::1]", false, "the port is missing"},
		{"::1", false, "want HOST:PORT"},
		{"127.0.0.1:99999", false, `port "99999" is not a number from 0 to 65535`},
		{"127.0.0.1:65536", true, "not a number from 0 to 65535"},
		{"127.0.0.1:-1", false, "not a number"},
		{"127.0.0.1:http", false, "not a number"},
		{"127.0.0.1:", false, `port ""`},
		{"0.0.0.0:8080", false, "0.0.0.0 is not a loopback address"},
		{":8080", false, "an empty host listens on every interface"},
		{"192.0.2.1:8080", false, "not a loopback address"},
	}
	for _, tt := range tests {
		err := CheckAddr(tt.addr, tt.remote)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckAddr(%q, %v) = %v, want %q", tt.addr, tt.remote, err, tt.want)
		}
	}
}

// CheckListen words CheckAddr's verdict by the fields Addr and
// AllowRemote, and a caller's names replace them.
func TestCheckListen(t *testing.T) {
	names := map[string]string{"Addr": "--http", "AllowRemote": "--allow-remote"}
	for _, tt := range []struct {
		addr          string
		remote        bool
		want, renamed string // "" for accepted
	}{
		{"127.0.0.1:8080", false, "", ""},
		{"0.0.0.0:80", true, "", ""},
		{"0.0.0.0:80", false, "Addr 0.0.0.0:80 is not a loopback address; pass AllowRemote to bind it",
			"--http 0.0.0.0:80 is not a loopback address; pass --allow-remote to bind it"},
		{"127.0.0.1", false, `Addr "127.0.0.1": the port is missing`, `--http "127.0.0.1": the port is missing`},
		{"127.0.0.1:99999", true, `Addr "127.0.0.1:99999": port "99999" is not a number`, `--http "127.0.0.1:99999": port`},
	} {
		err := CheckListen(tt.addr, tt.remote)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckListen(%q, %v) = %v, want nil", tt.addr, tt.remote, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("CheckListen(%q, %v) = %v, want %q", tt.addr, tt.remote, err, tt.want)
		} else if got := fieldtext.Rename(err, names).Error(); !strings.HasPrefix(got, tt.renamed) {
			t.Errorf("CheckListen(%q, %v) renamed %q, want %q", tt.addr, tt.remote, got, tt.renamed)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	allowed := []string{"https://inspector.example"}
	tests := []struct {
		origin string
		want   bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://localhost:3000", true},
		{"http://[::1]:1", true},
		{"https://inspector.example", true},
		{"https://inspector.example:444", false},
		{"http://evil.example", false},
		{"http://127.0.0.1.evil.example:8080", false},
		{"null", false},
		{"file://", false},
		{"chrome-extension://127.0.0.1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := OriginAllowed(tt.origin, allowed); got != tt.want {
			t.Errorf("OriginAllowed(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
}

// Guard over a real loopback listener: a foreign Host or Origin never
// reaches the handler.
func TestGuard(t *testing.T) {
	reached := 0
	srv := httptest.NewServer(Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		io.WriteString(w, "ok")
	}), []string{"https://inspector.example"}))
	defer srv.Close()
	self := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name, host, origin string
		want               int
	}{
		{"plain", "", "", 200},
		{"localhost host", "localhost" + self[strings.LastIndex(self, ":"):], "", 200},
		{"foreign host", "evil.example.com", "", 403},
		{"foreign host with port", "evil.example.com" + self[strings.LastIndex(self, ":"):], "", 403},
		{"loopback origin", "", "http://" + self, 200},
		{"allowed origin", "", "https://inspector.example", 200},
		{"foreign origin", "", "http://evil.example", 403},
		{"null origin", "", "null", 403},
	}
	for _, tt := range tests {
		before := reached
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		if tt.host != "" {
			req.Host = tt.host
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, res.StatusCode, tt.want)
		}
		if tt.want == 403 && reached != before {
			t.Errorf("%s: a refused request reached the handler", tt.name)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		name, site, referer string
		want                bool
	}{
		{"own page", "same-origin", "", true},
		{"typed", "none", "", true},
		{"other port, same host", "same-site", "", false},
		{"other site", "cross-site", "", false},
		{"other site, own referer", "cross-site", "http://127.0.0.1:8080/", false},
		{"no headers (curl)", "", "", true},
		{"old browser, own page", "", "http://127.0.0.1:8080/index.html?m=x", true},
		{"old browser, other page", "", "http://evil.example/x.html", false},
		{"old browser, other port", "", "http://127.0.0.1:9999/", false},
		{"old browser, https referer", "", "https://127.0.0.1:8080/", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/data/list.js", nil)
		if tt.site != "" {
			r.Header.Set("Sec-Fetch-Site", tt.site)
		}
		if tt.referer != "" {
			r.Header.Set("Referer", tt.referer)
		}
		if got := SameOrigin(r); got != tt.want {
			t.Errorf("%s: SameOrigin = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// CheckOrigin takes what browsers send and refuses what would match no
// request, saying why.
func TestCheckOrigin(t *testing.T) {
	for _, o := range []string{"https://inspector.example", "http://127.0.0.1:6274", "http://[::1]:8080", "http://localhost:3000"} {
		if err := CheckOrigin(o); err != nil {
			t.Errorf("CheckOrigin(%q) = %v, want nil", o, err)
		}
	}
	for o, want := range map[string]string{
		"":                              "empty",
		"*":                             "wildcard",
		"https://*.example":             "wildcard",
		"evil.example.com":              "no scheme",
		"https://inspector.example/":    "path",
		"https://inspector.example/x":   "path",
		"ftp://inspector.example":       "scheme",
		"https://":                      "no host",
		"https://u:p@inspector.example": "user",
		"https://inspector.example:0":   "port",
		"https://inspector.example#f":   "fragment",
		"https://Inspector.example":     "lower case",
	} {
		if err := CheckOrigin(o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckOrigin(%q) = %v, want an error saying %q", o, err, want)
		}
	}
}
