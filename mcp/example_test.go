package mcp_test

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/mcp"
)

// A plan entry needs only its world; the rest takes defaults, and the id
// is the simulator's form.
func ExampleParsePlan() {
	p, err := mcp.ParsePlan("plan.json", []byte(`{"episodes": [
  {"model": "my-model", "template": "T03", "focal_index": 1, "fault_mode": "timeout_late", "seed": 7}
]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := p.Episodes[0]
	fmt.Println(e.EpisodeID)
	fmt.Println(e.Contract, e.Condition, e.DelayS, e.ClientTimeoutS)
	// Output:
	// mcp/unknown/native/vanilla/default/my-model/T03/0/1/timeout_late
	// native vanilla 90 30
}

// Errors name the file, the line of the episode and the field.
func ExampleParsePlan_error() {
	_, err := mcp.ParsePlan("plan.json", []byte(`{"episodes": [
  {"template": "T03", "fault_mode": "timeout_late"},
  {"template": "T03", "fault_mode": "timeout_late", "instance": "two"}
]}`))
	fmt.Println(err)
	// Output:
	// plan.json:3: episodes[1].instance: want int, got JSON string
}

func ExampleShellQuote() {
	fmt.Println("harness --task " + mcp.ShellQuote("Charge order ORD-1 ('annual plan')"))
	// Output:
	// harness --task 'Charge order ORD-1 ('\''annual plan'\'')'
}
