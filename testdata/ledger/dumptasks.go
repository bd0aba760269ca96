//go:build ignore

// Dumps the instance-0 tasks of package sandbox (steps with their tools and
// arguments) to tasks.json, which make_sample.py builds the raw sample from.
//
//	go run testdata/ledger/dumptasks.go > testdata/ledger/tasks.json
package main

import (
	"encoding/json"
	"os"

	"github.com/limbo-toolkit/limbo/sandbox"
)

func main() {
	out := map[string]any{}
	for _, tpl := range sandbox.Templates() {
		t, err := sandbox.NewTask(tpl, 0)
		if err != nil {
			panic(err)
		}
		var steps []map[string]any
		for _, s := range t.Steps {
			steps = append(steps, map[string]any{"tool": s.Tool, "args": s.Args, "class": s.Class, "read_path": s.ReadPath, "reversible": s.Reversible, "platform": s.Platform})
		}
		out[tpl] = map[string]any{"service": t.Service, "task": t.ID, "steps": steps}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
