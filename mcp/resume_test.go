package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/design"
)

// Issue 28 item 3: merge refuses shards whose lines are not their planned
// episodes (a model edited), shards of different toolkit versions, and
// sidecars whose plans are not the plan they name.
func TestMergeShardsRefusesEdits(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	all := func(ids []string) []string { return ids }
	edit := func(path, from, to string, nth int) {
		t.Helper()
		b := readAll(t, path)
		lines := bytes.SplitAfter(b, []byte{'\n'})
		if !bytes.Contains(lines[nth], []byte(from)) {
			t.Fatalf("%s line %d lacks %s", path, nth+1, from)
		}
		lines[nth] = bytes.Replace(lines[nth], []byte(from), []byte(to), 1)
		if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	editMeta := func(path string, f func(*ShardMeta)) {
		t.Helper()
		m, err := ReadShardMeta(design.MetaPath(path))
		if err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		if err := os.WriteFile(design.MetaPath(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		shards func(dir string) []string
		want   string
	}{
		{"clean", func(dir string) []string {
			return []string{writeDriven(t, dir, plan, "1/2", all), writeDriven(t, dir, plan, "2/2", reversed)}
		}, ""},
		{"model edited", func(dir string) []string {
			p := writeDriven(t, dir, plan, "2/2", all)
			edit(p, `"model":"m"`, `"model":"gpt-x"`, 4)
			return []string{writeDriven(t, dir, plan, "1/2", all), p}
		}, `part-2of2.jsonl:5: episode E2/h/`},
		{"model edited, the field", func(dir string) []string {
			p := writeDriven(t, dir, plan, "2/2", all)
			edit(p, `"model":"m"`, `"model":"gpt-x"`, 4)
			return []string{writeDriven(t, dir, plan, "1/2", all), p}
		}, `field model: "gpt-x", the plan says "m"`},
		{"weight edited", func(dir string) []string {
			p := writeDriven(t, dir, plan, "1/2", all)
			edit(p, `"weight":1,`, `"weight":2,`, 0)
			return []string{p, writeDriven(t, dir, plan, "2/2", all)}
		}, "part-1of2.jsonl:1: episode " + plan.Episodes[0].EpisodeID + ": field weight: 2, the plan says 1"},
		{"toolkit versions", func(dir string) []string {
			return []string{writeDriven(t, dir, plan, "1/2", all), writeDrivenBy(t, dir, plan, "2/2", "0.0.9", all)}
		}, "was driven by toolkit test, "},
		{"sidecar plan edited", func(dir string) []string {
			p := writeDriven(t, dir, plan, "2/2", all)
			editMeta(p, func(m *ShardMeta) { m.Plan[0].ClientTimeoutS = 31 })
			return []string{writeDriven(t, dir, plan, "1/2", all), p}
		}, "are not the plan"},
		{"older sidecar without a plan", func(dir string) []string {
			p := writeDriven(t, dir, plan, "2/2", all)
			editMeta(p, func(m *ShardMeta) { m.Plan = nil })
			return []string{writeDriven(t, dir, plan, "1/2", all), p}
		}, "field plan: missing"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		out := filepath.Join(dir, "all.jsonl")
		_, err := MergeShards(out, nil, tt.shards(dir))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written", tt.name)
		}
	}
}

// A shard's plan identity (its sidecar) is on disk before the first
// episode: the harness of the first episode finds it. A drive that records
// nothing leaves neither ledger nor sidecar.
func TestRunDriveSidecarFirst(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "part.jsonl")
	// Each episode's harness copies the sidecar it finds; the copy is
	// renamed into place, since a harness still running when the drive
	// stops is killed, and a killed cp would leave seen.json cut short.
	seen := filepath.Join(dir, "seen.json")
	_, err = RunDrive(context.Background(), DriveJob{
		Ledger: out, Shard: "1/2", Toolkit: "test",
		DriveOptions: DriveOptions{Plan: plan, Harness: "cp " + ShellQuote(design.MetaPath(out)) + " " + ShellQuote(seen) + ".$$ && mv -f " + ShellQuote(seen) + ".$$ " + ShellQuote(seen) + "; exit 3",
			Server: []string{"/bin/true"}, Parallel: 1, Timeout: time.Minute, Grace: 50 * time.Millisecond},
	})
	if err == nil {
		t.Fatal("a harness that records nothing: no error")
	}
	m, rerr := ReadShardMeta(seen)
	_, want, _ := ShardPlan(plan, "1/2", "test")
	if rerr != nil || m.PlanSHA256 != want.PlanSHA256 || m.Shard != "1/2" {
		t.Fatalf("the first episode's harness found no sidecar of the plan: %v %+v", rerr, m)
	}
	for _, p := range []string{out, design.MetaPath(out), CreatedPath(out)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a drive that recorded nothing left %s", p)
		}
	}
}

// A killed shard must not adopt another plan's episodes: its ledger holds
// seed-1 lines (the episode ids carry no seed); resuming with the seed-2
// plan is refused before any episode runs, with or without the sidecar
// (a ledger of an older drive, killed before it wrote one), and so are a
// whole-plan drive and serve of that plan. The seed-1 plan resumes.
func TestResumeRefusesAnotherPlan(t *testing.T) {
	seed1, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	seed2, err := DefaultPlan(2, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	relabelled, err := DefaultPlan(1, "m", "h2")
	if err != nil {
		t.Fatal(err)
	}
	half, _, err := ShardPlan(seed1, "1/2", "test")
	if err != nil {
		t.Fatal(err)
	}
	killed := func(t *testing.T, sidecar bool) string {
		path := filepath.Join(t.TempDir(), "part.jsonl")
		var b bytes.Buffer
		for k := range 3 {
			b.Write(plannedLine(t, &half.Episodes[k], ""))
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if sidecar {
			_, m, _ := ShardPlan(seed1, "1/2", "test")
			if err := m.Write(path); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	ran := func(dir string) string { return filepath.Join(dir, "ran") }
	drive := func(path string, plan *Plan, shard, toolkit string) error {
		_, err := RunDrive(context.Background(), DriveJob{
			Ledger: path, Shard: shard, Toolkit: toolkit,
			DriveOptions: DriveOptions{Plan: plan, Harness: "touch " + ShellQuote(ran(filepath.Dir(path))) + "; exit 3",
				Server: []string{"/bin/true"}, Parallel: 1, Timeout: time.Minute, Grace: 50 * time.Millisecond},
		})
		return err
	}
	tests := []struct {
		name    string
		sidecar bool
		run     func(path string) error
		want    string // "" : the checks pass and the harness runs
	}{
		{"seed 2, sidecar", true, func(p string) error { return drive(p, seed2, "1/2", "test") }, "not shard 1/2 of this plan"},
		{"seed 2, no sidecar", false, func(p string) error { return drive(p, seed2, "1/2", "test") }, "field seed:"},
		{"other harness label, no sidecar", false, func(p string) error { return drive(p, relabelled, "1/2", "test") }, "not an episode of this plan"},
		{"other toolkit", true, func(p string) error { return drive(p, seed1, "1/2", "test2") }, "driven by toolkit test, this is test2"},
		{"other shard, no sidecar", false, func(p string) error { return drive(p, seed1, "2/2", "test") }, "not an episode of this plan"},
		{"whole plan, seed 2", false, func(p string) error { return drive(p, seed2, "", "test") }, "field seed:"},
		{"serve, seed 2", false, func(p string) error {
			return RunServe(context.Background(), ServeJob{Plan: seed2, Ledger: p, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}})
		}, "field seed:"},
		{"seed 1 resumes, sidecar", true, func(p string) error { return drive(p, seed1, "1/2", "test") }, ""},
		{"seed 1 resumes, no sidecar", false, func(p string) error { return drive(p, seed1, "1/2", "test") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := killed(t, tt.sidecar)
			before := readAll(t, path)
			err := tt.run(path)
			_, rerr := os.Stat(ran(filepath.Dir(path)))
			if tt.want == "" {
				if rerr != nil {
					t.Errorf("the plan of the ledger did not resume: %v", err)
				}
				if m, err := ReadShardMeta(design.MetaPath(path)); err != nil || m.Shard != "1/2" {
					t.Errorf("resumed shard's sidecar: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
			if rerr == nil {
				t.Error("a harness ran on a ledger of another plan")
			}
			if !bytes.Equal(readAll(t, path), before) {
				t.Error("the refused ledger changed")
			}
		})
	}
}
