package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

const epochs = "../../testdata/repeats/epochs.jsonl"

func TestRepeatsCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "repeats_text", args: []string{"repeats", "--in", epochs, "--by", "condition", "--cluster", "pair_key", "--consistency"}},
		{name: "repeats_csv", args: []string{"repeats", "--in", epochs, "--outcome", "eos", "--k", "1,2,4", "--cluster", "pair_key", "--format", "csv"}},
		{args: []string{"repeats", "--in", "DATA", "--consistency"}, exit: 2, stderr: []string{"--consistency: none of the"}},
		{args: []string{"repeats", "--in", epochs, "--k", "0"}, exit: 2, stderr: []string{"--k 0: want k ≥ 1"}},
		{args: []string{"repeats", "--in", epochs, "--by", "seed", "--cluster", "pair_key"}, exit: 2, stderr: []string{"has runs in two groups"}},
		{args: []string{"repeats", "--in", "DATA"}, stderr: []string{"no world was run more than once"}},
	})
}

// The consistency of repeats --consistency, recomputed here from the raw
// ledger: per world (pair_key and condition), the share of pairs of runs
// whose tool sequences are equal, averaged over worlds.
func TestRepeatsConsistencyByHand(t *testing.T) {
	runs := map[string][]string{}
	var order []string
	if err := ledger.ReadRaw(epochs, ledger.ReadOptions{}, func(r *ledger.RawEpisode) error {
		key := r.Condition + "|" + r.PairKey
		if runs[key] == nil {
			order = append(order, key)
		}
		seq := ""
		for _, c := range r.Calls {
			seq += c.Tool + ";"
		}
		runs[key] = append(runs[key], seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, k := range order {
		rs := runs[k]
		agree, pairs := 0, 0
		for i := range rs {
			for j := i + 1; j < len(rs); j++ {
				pairs++
				if rs[i] == rs[j] {
					agree++
				}
			}
		}
		sum += float64(agree) / float64(pairs)
	}
	want := sum / float64(len(order))
	code, stdout, stderr := runCmd(t, "repeats", "--in", epochs, "--consistency", "--cluster", "pair_key", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Consistency []struct {
			Measure  string
			Estimate float64
			Worlds   int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range got.Consistency {
		if c.Measure == "same_order" {
			found = true
			if c.Worlds != len(order) || math.Abs(c.Estimate-want) > 1e-12 {
				t.Errorf("same_order over %d worlds = %v; by hand %d worlds, %v", c.Worlds, c.Estimate, len(order), want)
			}
		}
	}
	if !found {
		t.Fatalf("no same_order in %s", stdout)
	}
}

// The examples of repeats' help run as written, from the repository's
// root (they read the committed testdata/repeats/epochs.jsonl).
func TestRepeatsHelpExamples(t *testing.T) {
	n := 0
	for _, line := range strings.Split(newRepeatsCmd(&env{}).Long, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "limbo-analyze ") {
			continue
		}
		args, err := splitShell(strings.TrimPrefix(line, "limbo-analyze "))
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if i > 0 && args[i-1] == "--in" {
				args[i] = "../../" + a
			}
		}
		if code, _, stderr := runCmd(t, args...); code != 0 {
			t.Errorf("%s: exit %d: %s", line, code, stderr)
		}
		n++
	}
	if n == 0 {
		t.Error("no examples in repeats' help")
	}
}
