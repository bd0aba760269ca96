package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDriveKilledShardResume (issue 28 item 3) kills a real `drive --shard
// 1/2 --seed 1` with SIGKILL once it has recorded a few episodes, and
// resumes it with --seed 2: that is refused (before, the seed-1 episodes
// were kept and merge made a ledger of two plans), and the ledger is left
// as it was. Resumed with --seed 1 it completes, and merges with shard 2.
func TestDriveKilledShardResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the full binary")
	}
	bin := builtBinary(t)
	harness := filepath.Join(t.TempDir(), "harness")
	if out, err := exec.Command("go", "build", "-o", harness, "../../mcp/testdata/harness").CombinedOutput(); err != nil {
		t.Fatalf("go build harness: %v\n%s", err, out)
	}
	dir := t.TempDir()
	part := filepath.Join(dir, "p1.jsonl")
	drive := func(shard, seed, out string) *exec.Cmd {
		return exec.Command(bin, "drive", "--shard", shard, "--seed", seed, "--out", out, "--parallel", "2",
			"--harness", harness+" -config {mcp_config} -policy key-reuse -task {task}")
	}
	first := drive("1/2", "1", part)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, _ := os.ReadFile(part); bytes.Count(b, []byte{'\n'}) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first drive recorded nothing in a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Process.Kill()
	first.Wait()
	before, _ := os.ReadFile(part)

	var stderr bytes.Buffer
	other := drive("1/2", "2", part)
	other.Stderr = &stderr
	err := other.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure || !strings.Contains(stderr.String(), "not shard 1/2 of this plan") {
		t.Fatalf("resume with another seed: %v, stderr %q; want exit 1 refusing the other plan", err, stderr.String())
	}
	if after, _ := os.ReadFile(part); !bytes.Equal(after, before) {
		t.Fatal("the refused resume changed the ledger")
	}

	stderr.Reset()
	same := drive("1/2", "1", part)
	same.Stderr = &stderr
	if err := same.Run(); err != nil {
		t.Fatalf("resume with the same seed: %v\n%s", err, stderr.String())
	}
	if err := drive("2/2", "1", filepath.Join(dir, "p2.jsonl")).Run(); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	merge := exec.Command(bin, "merge", "--out", filepath.Join(dir, "all.jsonl"), part, filepath.Join(dir, "p2.jsonl"))
	merge.Stderr = &stderr
	if err := merge.Run(); err != nil || !strings.Contains(stderr.String(), "217 episodes") {
		t.Errorf("merge of the resumed shards: %v, %q", err, stderr.String())
	}
}
