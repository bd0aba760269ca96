package sqlitestore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
	"github.com/limbo-toolkit/limbo/guard/sqlitestore"
)

// childEnv names the file the child process of TestSurvivesKill9 guards.
const childEnv = "LIMBO_GUARD_KILL_CHILD"

// The child's calls: "a" is begun and never finished (killed between begin
// and complete), "b" is completed and never answered (killed between
// complete and answer), "l" is a ledger action prepared and never
// finished; the workers then begin and complete keys until the kill.
var (
	callA = guard.Call{Tool: "charge", Fingerprint: "fa", Key: "a"}
	callB = guard.Call{Tool: "charge", Fingerprint: "fb", Key: "b"}
	callL = guard.Call{Tool: "charge", Fingerprint: "fl"}
)

func workerCall(key string) guard.Call {
	return guard.Call{Tool: "charge", Fingerprint: "f-" + key, Key: key}
}

// TestKillChild is the child of TestSurvivesKill9, run in a process of
// its own; it reports each transition on stdout once Begin or Finish has
// returned (the moment a proxy would answer) and runs until it is killed.
func TestKillChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("the child of TestSurvivesKill9")
	}
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	keys, _ := guard.New(guard.Config{Policy: guard.Keys}, s)
	ledger, _ := guard.New(guard.Config{Policy: guard.Ledger}, s)
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...) // one write per line, unbuffered
	}
	must := func(err error) {
		if err != nil {
			say("error %v", err)
			os.Exit(1)
		}
	}
	now := func() time.Time { return time.Now() }
	d, err := keys.Begin(ctx, callA, now())
	must(err)
	say("begun a %s", d.Outcome)
	d, err = keys.Begin(ctx, callB, now())
	must(err)
	must(keys.Finish(ctx, d.Ticket, guard.Succeeded, []byte("result-b"), now()))
	say("completed b")
	must(ledger.Issue(ctx, callL, 2, now()))
	d, err = ledger.Begin(ctx, callL, now())
	must(err)
	say("prepared l %s", d.Outcome)
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("w%d-%d", w, i)
				d, err := keys.Begin(ctx, workerCall(key), now())
				must(err)
				say("begun %s", key)
				must(keys.Finish(ctx, d.Ticket, guard.Succeeded, []byte(key), now()))
				say("completed %s", key)
			}
		}()
	}
	select {}
}

// A process SIGKILLed at any point keeps every transition it answered: a
// key begun and never finished comes back as an unknown outcome, a key
// completed (answered or not) replays its result, and no key it reported
// begun is lost.
func TestSurvivesKill9(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	for round := range 3 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) { killRound(t, 200+400*round) })
	}
}

func killRound(t *testing.T, after int) {
	path := filepath.Join(t.TempDir(), "guard.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	begun, completed := map[string]bool{}, map[string]bool{}
	workerLines := 0
	timeout := time.After(2 * time.Minute)
read:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the child ended before it was killed")
			}
			f := strings.Fields(line)
			switch f[0] {
			case "error":
				t.Fatalf("child: %s", line)
			case "begun", "prepared":
				begun[f[1]] = true
			case "completed":
				completed[f[1]] = true
			}
			if strings.HasPrefix(f[1], "w") {
				workerLines++
			}
			if workerLines >= after {
				break read
			}
		case <-timeout:
			cmd.Process.Kill()
			t.Fatal("the child did not report in time")
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	go func() {
		for range lines { // lines written before the kill landed
		}
	}()
	if !begun["a"] || !completed["b"] || !begun["l"] {
		t.Fatalf("the child did not reach its fixed points: %v %v", begun, completed)
	}

	ctx := context.Background()
	s := openAt(t, path)
	defer s.Close()
	keys, _ := guard.New(guard.Config{Policy: guard.Keys}, s)
	ledger, _ := guard.New(guard.Config{Policy: guard.Ledger}, s)
	now := guardtest.At(1e9)
	check := func(g *guard.Guard, c guard.Call, want guard.Outcome, result string) {
		t.Helper()
		d, err := g.Begin(ctx, c, now)
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != want || (want == guard.Replay && string(d.Result) != result) {
			t.Errorf("%s after the kill: %s %q, want %s %q", g.Key(c), d.Outcome, d.Result, want, result)
		}
	}
	check(keys, callA, guard.UnknownOutcome, "")
	check(keys, callB, guard.Replay, "result-b")
	// One of the ledger's two authorisations was prepared when the process
	// died: the other is still free, and the prepared one is unknown.
	if r, _, _ := ledger.Get(ctx, callL); r.Unresolved() != 1 || r.Prepared() != 0 || r.Issued != 2 {
		t.Errorf("ledger action after the kill: %+v", r)
	}
	replayed, unknown := 0, 0
	for key := range begun {
		if !strings.HasPrefix(key, "w") {
			continue
		}
		d, err := keys.Begin(ctx, workerCall(key), now)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case completed[key]:
			if d.Outcome != guard.Replay || string(d.Result) != key {
				t.Errorf("%s was completed: after the kill %s %q", key, d.Outcome, d.Result)
			}
			replayed++
		case d.Outcome == guard.UnknownOutcome:
			unknown++ // killed between begin and complete
		case d.Outcome == guard.Replay && string(d.Result) == key:
			replayed++ // completed, killed before it was answered
		default:
			t.Errorf("%s was begun: after the kill %s", key, d.Outcome)
		}
	}
	t.Logf("after %d worker lines: %d keys replay, %d are unknown", workerLines, replayed, unknown)
	if unknown == 0 {
		t.Log("no worker was caught between begin and complete this time")
	}
}
