package design_test

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// The paper's design compiles to the 25,930 episodes of the reference
// decomposition; each episode is simulated by index and graded.
func ExampleCompile() {
	plan, err := design.Compile(design.Paper())
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Len(), plan.Count("E2"), plan.Count("E5"))

	sim := design.NewSimulator(plan, agent.DefaultProfiles(), 1)
	raw, err := sim.Episode(0)
	if err != nil {
		panic(err)
	}
	ep, err := sandbox.Grade(raw)
	if err != nil {
		panic(err)
	}
	fmt.Println(ep.EpisodeID)
	// Output:
	// 25930 7812 1768
	// E1/minimal/native/vanilla/default/gpt-6-astra/T01/0/0/timeout_pre
}
