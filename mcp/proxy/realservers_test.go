package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// Real MCP servers nobody here wrote, installed by scripts/mcp/install.sh
// (which .ci/run calls) and named by these variables.
const (
	envMemory     = "LIMBO_MCP_MEMORY"
	envFilesystem = "LIMBO_MCP_FILESYSTEM"
	envSQLite     = "LIMBO_MCP_SQLITE"
)

// serverPath is the executable a variable names: the test is skipped
// without it, except under CI=true, where it fails.
func serverPath(t *testing.T, env string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real MCP servers: not under -short")
	}
	p := os.Getenv(env)
	missing := ""
	switch {
	case p == "":
		missing = env + " is not set"
	default:
		if _, err := os.Stat(p); err != nil {
			missing = env + ": " + err.Error()
		}
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: .ci/run installs the real MCP servers (scripts/mcp/install.sh) before the tests", missing)
		}
		t.Skipf("%s: run scripts/mcp/install.sh and source the environment file it writes", missing)
	}
	return p
}

// realWorld is one proxied episode in front of a real server: a client
// that re-sends the focal write blindly once after an error.
type realWorld struct {
	cmd      []string
	env      []string
	contract string // file under examples/proxy
	setup    func(t *testing.T, cs *sdk.ClientSession)
	tool     string
	args     map[string]any
}

// run serves one episode of the world under mode and returns it; check,
// if set, reads the upstream's state through the same connection after
// the episode.
func (w realWorld) run(t *testing.T, mode string, check func(up *Upstream)) graded {
	t.Helper()
	up, err := Connect(context.Background(), UpstreamSpec{Command: w.cmd, Env: w.env, StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if check != nil {
		defer check(up)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "proxy", w.contract))
	if err != nil {
		t.Fatal(err)
	}
	// The late copy is delivered when the session ends, after the retry,
	// whatever the machine's speed (a copy racing the retry would reach a
	// conditional write like edit_file before its first read is done).
	f := startProxy(t, up, string(data), Episode{Tool: w.tool, FaultMode: mode, Task: strings.TrimSuffix(w.contract, ".yaml")},
		func(o *Options) { o.LateDelay = time.Hour })
	if w.setup != nil {
		w.setup(t, f.cs)
	}
	blindRetry(t, f.cs, w.tool, w.args)
	callText(t, f.cs, "finish", map[string]any{"status": "completed", "uncertainties": []string{}})
	return f.close(t)
}

// realModes are the worlds every real server is tried in: the first copy
// never committed (pre), committed at once (post), committed late, or
// delivered twice.
// (The HTTP 500 modes cut at the same boundaries as the timeouts; the
// unit tests cover them.)
var realModes = []struct {
	mode      string
	committed int // executions of the focal write under a blind retry
}{
	{ledger.FaultTimeoutPre, 1},
	{ledger.FaultTimeoutPost, 2},
	{ledger.FaultTimeoutLate, 2},
	{ledger.FaultRedelivery, 2},
}

// TestSQLiteServer: mcp-server-sqlite's INSERT is not idempotent. A blind
// retry duplicates the row exactly in the worlds where the first copy
// committed, and the database holds the rows the ledger counts.
func TestSQLiteServer(t *testing.T) {
	bin := serverPath(t, envSQLite)
	for _, m := range realModes {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "notes.db")
			w := realWorld{
				cmd: []string{bin, "--db-path", db}, contract: "sqlite.yaml",
				setup: func(t *testing.T, cs *sdk.ClientSession) {
					callText(t, cs, "create_table", map[string]any{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"})
				},
				tool: "write_query", args: map[string]any{"query": "INSERT INTO notes (body) VALUES ('standup at 10')"},
			}
			rows := -1
			g := w.run(t, m.mode, func(up *Upstream) { rows = sqliteRows(t, up) })
			dup := m.committed > 1
			if g.ep.Duplicated != dup || !g.ep.FaultFired || g.ep.FocalCommits != int64(m.committed) {
				t.Errorf("duplicated %v fired %v focal commits %d, want %v true %d", g.ep.Duplicated, g.ep.FaultFired, g.ep.FocalCommits, dup, m.committed)
			}
			if rows != m.committed {
				t.Errorf("the database has %d rows, want %d", rows, m.committed)
			}
		})
	}
}

// sqliteRows counts the notes through the server itself (its answer is
// Python's repr of the rows: [{'n': 2}]).
func sqliteRows(t *testing.T, up *Upstream) int {
	t.Helper()
	res, err := up.CallTool(context.Background(), "read_query", json.RawMessage(`{"query":"SELECT COUNT(*) AS n FROM notes"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`'n': (\d+)`).FindStringSubmatch(resultText(res))
	if m == nil {
		t.Fatalf("count: %q", resultText(res))
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestMemoryServer: server-memory's create_entities ignores an entity whose
// name exists, so a blind retry executes twice where the first copy
// committed but never duplicates: the memory file has the entity once, the
// grade counts one commit, and the contract's read-back agrees.
func TestMemoryServer(t *testing.T) {
	bin := serverPath(t, envMemory)
	for _, m := range append(realModes, struct {
		mode      string
		committed int
	}{ledger.FaultPartialBatch, 2}) {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "memory.jsonl")
			entities := []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"wrote the first program"}}}
			if m.mode == ledger.FaultPartialBatch {
				entities = append(entities, map[string]any{"name": "Charles", "entityType": "person", "observations": []any{}})
			}
			w := realWorld{cmd: []string{bin}, env: []string{"MEMORY_FILE_PATH=" + file}, contract: "memory.yaml",
				tool: "create_entities", args: map[string]any{"entities": entities}}
			g := w.run(t, m.mode, nil)
			ada := 0
			for _, e := range g.raw.Effects {
				if e.ResourceID == "0" && !e.Absorbed {
					ada++
				}
			}
			if g.ep.Duplicated || !g.ep.FaultFired || ada != m.committed || g.ep.Extra["verify"] != ledger.VerifyAgree {
				t.Errorf("duplicated %v fired %v, Ada executed %d times (want %d), verify %q %+v",
					g.ep.Duplicated, g.ep.FaultFired, ada, m.committed, g.ep.Extra["verify"], g.raw.Rules.Verify)
			}
			names := memoryEntities(t, file)
			if names["Ada"] != 1 || (m.mode == ledger.FaultPartialBatch && names["Charles"] != 1) {
				t.Errorf("memory file entities %v, want each once", names)
			}
		})
	}
}

// memoryEntities counts the entity lines of a memory file by name.
func memoryEntities(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct{ Type, Name string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("memory file: %v: %q", err, sc.Text())
		}
		if line.Type == "entity" {
			out[line.Name]++
		}
	}
	return out
}

// TestFilesystemServer: server-filesystem's write_file overwrites, so a
// blind retry writes the file twice where the first copy committed and
// the file holds the content once; a repeated edit finds its old text gone
// and fails, so it executes once whatever the world.
func TestFilesystemServer(t *testing.T) {
	bin := serverPath(t, envFilesystem)
	for _, m := range realModes {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "notes.md")
			w := realWorld{cmd: []string{bin, dir}, contract: "filesystem.yaml",
				tool: "write_file", args: map[string]any{"path": path, "content": "draft\n"}}
			g := w.run(t, m.mode, nil)
			if g.ep.Duplicated || !g.ep.FaultFired || len(g.raw.Effects) != m.committed || g.ep.FocalCommits != 1 {
				t.Errorf("duplicated %v fired %v executions %d commits %d, want false true %d 1", g.ep.Duplicated, g.ep.FaultFired, len(g.raw.Effects), g.ep.FocalCommits, m.committed)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "draft\n" {
				t.Errorf("file %q %v", b, err)
			}

			// edit_file on the file: the retry of a committed edit fails.
			w = realWorld{cmd: []string{bin, dir}, contract: "filesystem.yaml", tool: "edit_file",
				args: map[string]any{"path": path, "edits": []any{map[string]any{"oldText": "draft", "newText": "final"}}}}
			g = w.run(t, m.mode, nil)
			if b, _ := os.ReadFile(path); string(b) != "final\n" || g.ep.Duplicated || len(g.raw.Effects) != 1 {
				t.Errorf("edit: file %q, duplicated %v, %d executions", b, g.ep.Duplicated, len(g.raw.Effects))
			}
		})
	}
}

// TestRealServerLedger: episodes of a real server, one proxy run each,
// append to one ledger as the next repetitions of the world, and read back
// with the grade the proxy gave them (the lines carry their rules).
func TestRealServerLedger(t *testing.T) {
	bin := serverPath(t, envMemory)
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "proxy", "memory.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var logged []ledger.Episode
	for range 2 {
		up, err := Connect(context.Background(), UpstreamSpec{Command: []string{bin}, Env: []string{"MEMORY_FILE_PATH=" + file}, StartTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseContract("memory.yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Resolve(up.Tools); err != nil {
			t.Fatal(err)
		}
		l, err := ledgerfile.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		ep := Episode{Tool: "create_entities", FaultMode: ledger.FaultTimeoutPost}
		if err := ep.Normalize(false); err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Upstream: up, Contract: c, Single: ep, Ledger: l, OnEpisode: func(_ *ledger.RawEpisode, g ledger.Episode) { logged = append(logged, g) }})
		if err != nil {
			t.Fatal(err)
		}
		cs, served := serveInMemory(t, p)
		blindRetry(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{}}}})
		cs.Close()
		if err := <-served; err != nil {
			t.Fatal(err)
		}
		l.Close()
		up.Close()
	}
	var eps []ledger.Episode
	if err := ledger.ReadEpisodes(path, ledger.ReadOptions{}, func(e *ledger.Episode) error { eps = append(eps, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps[0].Instance != 0 || eps[1].Instance != 1 || eps[0].EpisodeID == eps[1].EpisodeID {
		t.Fatalf("episodes %+v", eps)
	}
	for i := range eps {
		if eps[i].Duplicated != logged[i].Duplicated || eps[i].FocalCommits != logged[i].FocalCommits || eps[i].TaskSuccess != logged[i].TaskSuccess {
			t.Errorf("episode %d read back as %+v, logged %+v", i, eps[i], logged[i])
		}
	}
	if names := memoryEntities(t, file); names["Ada"] != 1 {
		t.Errorf("memory file %v", names)
	}
}
