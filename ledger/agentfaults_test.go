package ledger

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

const (
	agentDocBegin = "<!-- begin: agent-side catalogue (ledger.AgentFaults, ledger.GuardArms; TestAgentFaultDocs checks it, go test ./ledger -update rewrites it) -->\n"
	agentDocEnd   = "<!-- end: agent-side catalogue -->\n"
)

// The agent-side catalogue is complete: every entry says what happens,
// what is sent again and what recovers it; only crash_resume has windows;
// the column enumerations are its names.
func TestAgentFaultCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range AgentFaults() {
		if f.Name == "" || seen[f.Name] || f.Label == "" || f.Happens == "" || f.Repeats == "" || f.Recovery == "" {
			t.Errorf("agent fault %+v: incomplete or repeated", f)
		}
		seen[f.Name] = true
		if (len(f.Windows) > 0) != (f.Name == AgentFaultCrashResume) {
			t.Errorf("%s: windows %v", f.Name, f.Windows)
		}
		for _, w := range f.Windows {
			if !CrashWindows.Has(w) {
				t.Errorf("%s: window %q is not a crash_window value", f.Name, w)
			}
		}
		if got, ok := AgentFaultByName(f.Name); !ok || got.Name != f.Name {
			t.Errorf("AgentFaultByName(%q)", f.Name)
		}
	}
	if !slices.Equal(AgentFaultNames.Values, agentFaultNames()) || AgentFaultNames.Values[0] != AgentFaultNone {
		t.Errorf("agent_fault values %v", AgentFaultNames.Values)
	}
	for _, g := range GuardArms() {
		if !GuardNames.Has(g.Name) || g.Label == "" || g.Doc == "" {
			t.Errorf("guard %+v", g)
		}
	}
	if len(GuardArms()) != len(GuardNames.Values) {
		t.Errorf("%d guards, %d values", len(GuardArms()), len(GuardNames.Values))
	}
}

// docs/simulation.md's agent-side tables are the catalogue's.
func TestAgentFaultDocs(t *testing.T) {
	var b strings.Builder
	b.WriteString("| agent fault | what happens | what is sent again | exactly-once recovery |\n|---|---|---|---|\n")
	for _, f := range AgentFaults() {
		name := "`" + f.Name + "`"
		if len(f.Windows) > 0 {
			name += " (" + strings.Join(f.Windows, ", ") + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, f.Happens, f.Repeats, f.Recovery)
	}
	b.WriteString("\n| guard | what it is |\n|---|---|\n")
	for _, g := range GuardArms() {
		fmt.Fprintf(&b, "| `%s` (%s) | %s |\n", g.Name, g.Label, g.Doc)
	}
	raw, err := os.ReadFile(faultDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(raw), agentDocBegin)
	old, after, ok2 := strings.Cut(rest, agentDocEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no %q … %q block", faultDoc, agentDocBegin, agentDocEnd)
	}
	if old == b.String() {
		return
	}
	if *update {
		if err := os.WriteFile(faultDoc, []byte(before+agentDocBegin+b.String()+agentDocEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's agent-side tables differ from the catalogue; run go test ./ledger -run TestAgentFaultDocs -update", faultDoc)
}
