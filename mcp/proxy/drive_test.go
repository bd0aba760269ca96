package proxy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// NewDrivePlan reads the plan and builds each proxy's command line: the
// contract, then the flags, and the upstream as a command after -- or a URL.
func TestNewDrivePlan(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.json")
	data := `{"episodes": [{"tool": "send", "fault_mode": "timeout_post"}, {"fault_mode": "none", "rep": 1, "prompt": "own"}]}`
	if err := os.WriteFile(plan, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, contract, url string
		flags, command      []string
		args, upstream      []string
	}{
		{"command", "c.yaml", "", []string{"--late-delay=5"}, []string{"srv", "{episode}"},
			[]string{"--contract", "c.yaml", "--late-delay=5"}, []string{"--", "srv", "{episode}"}},
		{"url, no contract", "", "http://127.0.0.1:9/mcp", nil, nil, nil, []string{"--upstream", "http://127.0.0.1:9/mcp"}},
	} {
		d, err := NewDrivePlan(plan, tc.contract, tc.flags, tc.command, tc.url, "the task")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(d.Args, tc.args) || !slices.Equal(d.Upstream, tc.upstream) {
			t.Errorf("%s: args %q, upstream %q; want %q, %q", tc.name, d.Args, d.Upstream, tc.args, tc.upstream)
		}
		if d.Len() != 2 || d.Instruction(0) != "the task" || d.Instruction(1) != "own" || d.Episodes[0].FaultMode != "timeout_post" {
			t.Errorf("%s: episodes %+v, instructions %q, %q", tc.name, d.Episodes, d.Instruction(0), d.Instruction(1))
		}
	}
	if _, err := NewDrivePlan(filepath.Join(t.TempDir(), "none.json"), "", nil, []string{"srv"}, "", ""); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing plan file: err = %v, want one naming the file", err)
	}
}
