package design

import (
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/sandbox"
)

// A task is shared by every episode of its world, and its steps'
// arguments are sent as they are, unless something is added to them
// (agent.Agent.write): so no agent, guard, proxy or service may change a
// call's arguments. A whole design run leaves every task's arguments as
// they were, to the last nested row.
func TestTaskArgumentsUnchanged(t *testing.T) {
	for _, d := range Builtin {
		t.Run(d, func(t *testing.T) {
			sim, err := LoadSimulator(d, "", 1)
			if err != nil {
				t.Fatal(err)
			}
			n := sim.Plan.Len()
			if testing.Short() {
				n = min(n, 3000) // the race detector's run
			}
			before := map[*sandbox.Task][]map[string]any{}
			for i := range n {
				task := sim.Plan.Episode(i).World.Task
				if _, ok := before[task]; !ok {
					for _, st := range task.Steps {
						before[task] = append(before[task], deepCopy(st.Args).(map[string]any))
					}
				}
			}
			if err := Generate(sim, 0, n, 2, false, func(*Chunk) error { return nil }); err != nil {
				t.Fatal(err)
			}
			for task, args := range before {
				for i, st := range task.Steps {
					if !reflect.DeepEqual(st.Args, args[i]) {
						t.Errorf("task %s step %d: arguments changed by the run:\n got %v\nwant %v", task.ID, i, st.Args, args[i])
					}
				}
			}
			if len(before) == 0 {
				t.Fatal("no tasks")
			}
		})
	}
}

// deepCopy copies a JSON value: its maps and slices anew.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	case []map[string]any:
		s := make([]map[string]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e).(map[string]any)
		}
		return s
	}
	return v
}
