package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
)

// writeDriven writes a fake driven shard of plan into dir: its sidecar and
// a ledger holding lines for ids (in the order given).
func writeDriven(t *testing.T, dir string, plan *Plan, shard string, ids func([]string) []string) string {
	t.Helper()
	return writeDrivenBy(t, dir, plan, shard, "test", ids)
}

// writeDrivenBy is writeDriven with the toolkit version of the sidecar.
func writeDrivenBy(t *testing.T, dir string, plan *Plan, shard, toolkit string, ids func([]string) []string) string {
	t.Helper()
	_, m, err := ShardPlan(plan, shard, toolkit)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "part-"+strings.ReplaceAll(shard, "/", "of")+".jsonl")
	byID := map[string]*Episode{}
	for k := range m.Plan {
		byID[m.Plan[k].EpisodeID] = &m.Plan[k]
	}
	var b bytes.Buffer
	for _, id := range ids(m.EpisodeIDs) {
		b.Write(plannedLine(t, byID[id], `"shard":`+strconv.Quote(shard)))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// plannedLine is a ledger line of the planned episode ep with its design
// fields, as a server records it, and the extra fields given (JSON members,
// "" for none), with its newline.
func plannedLine(t testing.TB, ep *Episode, extra string) []byte {
	t.Helper()
	le := ledger.Episode{
		EpisodeID: ep.EpisodeID, Contract: ep.Contract, Template: ep.Template,
		Instance: int64(ep.Instance), FocalIndex: int64(ep.FocalIndex), FaultMode: ep.FaultMode, Seed: int64(ep.Seed),
	}
	if ep.FaultMode == ledger.FaultTimeoutLate || ep.FaultMode == ledger.FaultTimeoutLateTail {
		le.DelayS = ep.DelayS
	}
	ep.Label(&le)
	b, err := json.Marshal(&le)
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-1]
	b = append(b, fmt.Sprintf(`,"annotations":%v`, ep.Annotations)...)
	if extra != "" {
		b = append(append(b, ','), extra...)
	}
	return append(b, "}\n"...)
}

func reversed(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[len(ids)-1-i] = id
	}
	return out
}

// Shards driven in any episode order merge into the plan's order, with a
// whole-plan sidecar; ShardPlan's slices are design.ShardRange's.
func TestMergeShardsPlanOrder(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	parts := []string{
		writeDriven(t, dir, plan, "2/3", reversed),
		writeDriven(t, dir, plan, "1/3", reversed),
		writeDriven(t, dir, plan, "3/3", func(ids []string) []string { return ids }),
	}
	if !IsDrivenShard(parts[0]) {
		t.Fatal("IsDrivenShard: false for a driven shard")
	}
	out := filepath.Join(dir, "all.jsonl")
	n, err := MergeShards(out, nil, parts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(readAll(t, out)), "\n"), "\n")
	if n != plan.Len() || len(lines) != plan.Len() {
		t.Fatalf("merged %d episodes, %d lines; plan has %d", n, len(lines), plan.Len())
	}
	for i, l := range lines {
		if !strings.Contains(l, fmt.Sprintf("%q", plan.Episodes[i].EpisodeID)) {
			t.Fatalf("line %d is %s, want episode %s", i+1, l, plan.Episodes[i].EpisodeID)
		}
	}
	m, err := ReadShardMeta(design.MetaPath(out))
	if err != nil || m.Shard != "1/1" || len(m.EpisodeIDs) != plan.Len() {
		t.Errorf("merged sidecar %+v, err %v", m, err)
	}
}

func TestMergeShardsRefuses(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	other, err := DefaultPlan(2, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	all := func(ids []string) []string { return ids }
	p1 := writeDriven(t, dir, plan, "1/2", all)
	tests := []struct {
		name  string
		shard func() string
		want  string
	}{
		{"missing episode", func() string {
			return writeDriven(t, t.TempDir(), plan, "2/2", func(ids []string) []string { return ids[1:] })
		}, "incomplete shard 2/2"},
		{"episode twice", func() string {
			return writeDriven(t, t.TempDir(), plan, "2/2", func(ids []string) []string { return append(ids, ids[0]) })
		}, "recorded twice"},
		{"other plan", func() string { return writeDriven(t, t.TempDir(), other, "2/2", all) }, "not shards of one run"},
		{"same shard", func() string { return p1 }, "given twice"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out.jsonl")
		_, err := MergeShards(out, nil, []string{p1, tt.shard()})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written", tt.name)
		}
	}
}

// A ledger whose sidecar names another shard is refused before resuming.
func TestShardMetaCheckExisting(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := writeDriven(t, dir, plan, "1/2", func(ids []string) []string { return ids[:1] })
	_, same, _ := ShardPlan(plan, "1/2", "test")
	_, next, _ := ShardPlan(plan, "2/2", "test")
	if err := same.CheckExisting(p); err != nil {
		t.Errorf("same shard: %v", err)
	}
	if err := next.CheckExisting(p); err == nil || !strings.Contains(err.Error(), "use another Out") {
		t.Errorf("other shard: %v", err)
	}
	if _, _, err := ShardPlan(plan, fmt.Sprintf("1/%d", plan.Len()+1), ""); err == nil {
		t.Error("ShardPlan accepted empty shards")
	}
}

func TestPlanSourceAndLimits(t *testing.T) {
	_, err := PlanSource{One: Episode{Template: "T03", FocalIndex: 99, FaultMode: "none", Contract: "native", Condition: DefaultCondition}, Model: "m", Harness: "h"}.Load()
	var ee *EpisodeError
	if !errors.As(err, &ee) {
		t.Errorf("bad single episode: err %v, want an EpisodeError", err)
	}
	p, err := PlanSource{Model: "m", Harness: "h", Seed: 1, Annotations: true}.Load()
	if err != nil || p.Len() == 0 || !strings.Contains(p.Episodes[0].EpisodeID, "+annotations") {
		t.Errorf("default annotated plan: %v", err)
	}
	if err := (Limits{MaxCalls: -1}).Check(); err == nil {
		t.Error("negative limit accepted")
	}
	l := Limits{ThinkS: 10, MaxCalls: 40, MaxTimeS: 7500.5, MaxArgBytes: 1 << 16}
	if got := strings.Join(l.Args(), " "); got != "--think-s 10 --max-calls 40 --max-time-s 7500.5 --max-arg-bytes 65536" {
		t.Errorf("Args: %s", got)
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RunServe prints the next pending task, and with nothing pending reports
// it and succeeds.
func TestRunServePrintTaskAndDone(t *testing.T) {
	plan, err := PlanSource{One: Episode{Template: "T03", FocalIndex: 1, FaultMode: "timeout_late", Contract: "native", Condition: DefaultCondition}, Model: "m", Harness: "h", Seed: 1}.Load()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	var out bytes.Buffer
	if err := RunServe(context.Background(), ServeJob{Plan: plan, Ledger: path, Stdout: &out, PrintTask: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), Instruction(plan, 0)+"\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	// The episode recorded: nothing pending.
	if err := os.WriteFile(path, plannedLine(t, &plan.Episodes[0], ""), 0o644); err != nil {
		t.Fatal(err)
	}
	done := 0
	if err := RunServe(context.Background(), ServeJob{Plan: plan, Ledger: path, Done: func(total int, _ string) { done = total }}); err != nil || done != 1 {
		t.Errorf("nothing pending: err %v, Done got %d", err, done)
	}
	if err := RunServe(context.Background(), ServeJob{Plan: plan, Ledger: path, Stdout: &out, PrintTask: true}); err == nil {
		t.Error("print-task with nothing pending succeeded")
	}
}

// A merged driven run is created when its first shard was: the earliest of
// the shards' creation sidecars; without one on every shard, none.
func TestMergeShardsCreated(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := writeDriven(t, dir, plan, "1/2", reversed)
	b := writeDriven(t, dir, plan, "2/2", reversed)
	early := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if err := WriteCreated(a, early.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Only one shard has a sidecar: the merge records none.
	out := filepath.Join(dir, "partial.jsonl")
	if _, err := MergeShards(out, nil, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := ReadCreated(out); ok || err != nil {
		t.Errorf("a shard without a creation time: merged sidecar present (%v, %v)", ok, err)
	}
	if err := WriteCreated(b, early); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "all.jsonl")
	if _, err := MergeShards(out, nil, []string{a, b}); err != nil {
		t.Fatal(err)
	}
	got, _, ok, err := ReadCreated(out)
	if !ok || err != nil || !got.Equal(early) {
		t.Errorf("merged creation time %v (ok %v, err %v), want the earliest shard's %v", got, ok, err, early)
	}
	// A malformed shard sidecar fails the merge, naming it, before any output.
	if err := os.WriteFile(CreatedPath(a), []byte(`{"created_utc": "noon"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if _, err := MergeShards(bad, nil, []string{a, b}); err == nil || !strings.Contains(err.Error(), CreatedPath(a)) {
		t.Errorf("malformed shard sidecar: error %v, want one naming %s", err, CreatedPath(a))
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed merge left %s (%v)", bad, err)
	}
}
