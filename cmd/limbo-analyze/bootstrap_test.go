package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// Every bootstrap gives the same bytes whatever GOMAXPROCS and --jobs:
// a replicate's draws depend on the seed and its index alone, and each
// lands in its own slot.
func TestBootstrapDeterministic(t *testing.T) {
	const clustered = "../../testdata/contrast/clustered.csv"
	cases := [][]string{
		{"rates", "--in", clustered, "--outcome", "duplicated", "--by", "condition,model", "--cluster", "task"},
		{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--cluster", "task"},
		{"paired", "--in", "DATA", "--outcome", "agent_time_s", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--cluster", "task"},
		{"shapley", "--in", clustered, "--formula", "duplicated ~ condition + model", "--cluster", "task"},
		{"model", "--in", clustered, "--formula", "duplicated ~ condition + model + x", "--contrast", "condition", "--by", "model", "--cluster", "task"},
		{"model", "--in", clustered, "--fit", "gee", "--group", "task", "--formula", "duplicated ~ condition + x", "--contrast", "condition", "--cluster", "task"},
		{"model", "--in", clustered, "--formula", "duplicated ~ condition + (1 | task)", "--contrast", "condition", "--random-effects", "marginal"},
		{"tables", "--in", "DATA", "--table", "3", "--cluster", "task"},
		{"tables", "--in", "DATA", "--table", "4"},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, args := range cases {
		args = append(args, "--bootstrap", "60", "--seed", "3", "--format", "json")
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "DATA", cliData+"/episodes.csv")
		}
		var want []byte
		for _, run1 := range []struct {
			procs int
			jobs  string
		}{{1, "0"}, {2, "0"}, {4, "0"}, {2, "3"}} {
			{
				procs, jobs := run1.procs, run1.jobs
				runtime.GOMAXPROCS(procs)
				var stdout, stderr bytes.Buffer
				if code := run(append(args, "--jobs", jobs), strings.NewReader(""), &stdout, &stderr); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
				}
				if want == nil {
					want = stdout.Bytes()
					if !bytes.Contains(want, []byte(`"bootstrap"`)) && args[0] != "tables" {
						t.Fatalf("%v: no bootstrap in the output", args)
					}
					continue
				}
				if !bytes.Equal(stdout.Bytes(), want) {
					t.Errorf("%v: GOMAXPROCS %d, --jobs %s: output differs from GOMAXPROCS 1", args[:1], procs, jobs)
				}
			}
		}
	}
}

// The bootstrap's layouts in each command, and its flags' errors.
func TestBootstrapCLI(t *testing.T) {
	const clustered = "../../testdata/contrast/clustered.csv"
	runCLICases(t, []cliCase{
		{name: "rates_boot_text", args: []string{"rates", "--in", clustered, "--outcome", "duplicated", "--by", "condition", "--cluster", "task", "--bootstrap", "200", "--seed", "7"}},
		{name: "rates_boot_csv", args: []string{"rates", "--in", clustered, "--outcome", "duplicated", "--by", "condition", "--cluster", "task", "--bootstrap", "200", "--seed", "7", "--interval", "percentile", "--format", "csv"}},
		{name: "paired_boot_text", args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--cluster", "task", "--bootstrap", "200"}},
		{name: "paired_boot_json", args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--cluster", "task", "--bootstrap", "200", "--format", "json"}},
		{name: "shapley_boot_csv", args: []string{"shapley", "--in", clustered, "--formula", "duplicated ~ condition + model", "--cluster", "task", "--bootstrap", "100", "--format", "csv"}},
		{name: "tables3_boot_md", args: []string{"tables", "--in", "DATA", "--table", "3", "--cluster", "task", "--bootstrap", "200", "--format", "md"}},
		{args: []string{"rates", "--in", clustered, "--outcome", "duplicated", "--bootstrap", "100"}, exit: 2, stderr: []string{"resamples clusters: name the column (--cluster)"}},
		{args: []string{"rates", "--in", clustered, "--outcome", "duplicated", "--seed", "4"}, exit: 2, stderr: []string{"--seed applies with --bootstrap N"}},
		{args: []string{"rates", "--in", clustered, "--outcome", "duplicated", "--cluster", "task", "--bootstrap", "100", "--interval", "basic"}, exit: 2, stderr: []string{`--interval: "basic": want bca or percentile`}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--cluster", "task"}, exit: 2, stderr: []string{"--cluster applies with --bootstrap N"}},
		{args: []string{"shapley", "--in", clustered, "--formula", "duplicated ~ condition", "--bootstrap", "-1", "--cluster", "task"}, exit: 2, stderr: []string{"--bootstrap -1: want a number of bootstrap replicates"}},
		{args: []string{"tables", "--in", "DATA", "--table", "3", "--bootstrap", "10"}, exit: 2, stderr: []string{"--bootstrap 10: too few"}},
		{args: []string{"tables", "--in", "DATA", "--table", "3", "--bootstrap", "-1"}, exit: 2, stderr: []string{"--bootstrap -1: want a number of bootstrap replicates ≥ 0"}},
		{args: []string{"tables", "--in", "DATA", "--table", "3", "--bootstrap", "100", "--interval", "foo"}, exit: 2, stderr: []string{`--interval: "foo": want bca or percentile`}},
		{args: []string{"tables", "--in", "DATA", "--table", "3", "--cluster", "task"}, exit: 2, stderr: []string{"--cluster applies with --bootstrap N"}},
	})
}
