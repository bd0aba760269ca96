package agent

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/sandbox"
)

// Condition kinds: what a recovery condition changes mechanically. The
// behavioural part of every condition (aware, reflect, rules, vbr and the
// shifts of the others) is data in the profile file.
const (
	KindPrompt  = iota // vanilla, aware, reflect, rules, vbr: the agent alone
	KindSDK            // sdk-retry: transparent client retries
	KindGuard          // guard: MCP-server middleware
	KindState          // state-oracle tool
	KindOutcome        // outcome-oracle tool
	KindWait           // wait-Δ: wait until Δ after the send, then verify
)

// Condition is a parsed recovery condition (the ledger's condition values, docs/ledger.md).
type Condition struct {
	Name  string
	Kind  int
	WaitS float64 // KindWait: Δ
}

// ParseCondition recognises the paper's conditions and wait-N for any N ≥ 0
// seconds.
func ParseCondition(name string) (Condition, error) {
	c := Condition{Name: name}
	switch name {
	case "vanilla", "aware", "reflect", "rules", "vbr":
		c.Kind = KindPrompt
	case "sdk-retry":
		c.Kind = KindSDK
	case "guard":
		c.Kind = KindGuard
	case "state-oracle":
		c.Kind = KindState
	case "outcome-oracle":
		c.Kind = KindOutcome
	default:
		s, ok := strings.CutPrefix(name, "wait-")
		if !ok {
			return c, fmt.Errorf("unknown condition %q (want vanilla, aware, reflect, sdk-retry, rules, vbr, guard, state-oracle, outcome-oracle or wait-N)", name)
		}
		d, err := strconv.ParseFloat(s, 64)
		if err != nil || d < 0 || d > 86400 {
			return c, fmt.Errorf("condition %q: wait must be 0–86400 seconds", name)
		}
		c.Kind, c.WaitS = KindWait, d
	}
	return c, nil
}

// Oracles are the extra tools the condition exposes to the agent.
func (c Condition) Oracles() []string {
	switch c.Kind {
	case KindState:
		return []string{sandbox.ToolStateOracle}
	case KindOutcome:
		return []string{sandbox.ToolOutcomeOracle}
	}
	return nil
}

// Wrap puts the condition's middleware between the agent and the world.
func (c Condition) Wrap(w Caller, taskID, contract string) Caller {
	switch c.Kind {
	case KindSDK:
		return &RetryClient{Next: w}
	case KindGuard:
		return NewGuard(w, taskID, contract)
	}
	return w
}
