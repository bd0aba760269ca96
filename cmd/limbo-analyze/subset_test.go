package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user's CSV with only some of the schema's columns: the analysis
// commands work when the columns they use are there, and otherwise fail
// with one line naming what is missing.
func TestAnalysisOnColumnSubset(t *testing.T) {
	p := filepath.Join(t.TempDir(), "small.csv")
	// Hand-checked: model m1 has eos 2 of 3, m2 1 of 3; paired by team
	// (k-th with k-th by episode_id), m1 vs m2: team a (e1,e5) only m1
	// succeeds, team b (e2,e4) both; e3 and e6 have no partner. So 2 pairs,
	// b = 1, c = 0.
	csv := "episode_id,model,fault_fired,eos,task_success,duplicated,team\n" +
		"e1,m1,true,true,true,false,a\n" +
		"e2,m1,true,true,true,false,b\n" +
		"e3,m1,true,false,true,true,a\n" +
		"e4,m2,true,true,true,false,b\n" +
		"e5,m2,true,false,false,false,a\n" +
		"e6,m2,false,false,true,true,b\n"
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		exit   int
		stdout []string
		stderr []string
	}{
		{args: []string{"rates", "--in", p, "--outcome", "eos", "--by", "model", "--format", "csv"},
			stdout: []string{"m1,3,2,0.6666666666666", "m2,3,1,0.3333333333333"}, stderr: []string{"no weight column; rates are unweighted"}},
		{args: []string{"rates", "--in", p, "--outcome", "eos", "--by", "team", "--where", `model == "m1" && fault_fired`, "--format", "csv"},
			stdout: []string{"a,2,1,0.5", "b,1,1,1"}},
		{args: []string{"paired", "--in", p, "--outcome", "eos", "--arm", "model", "--base", "m1", "--pair-by", "team", "--format", "json"},
			stdout: []string{`"pairs": 2`, `"b": 1`, `"c": 0`}},
		{args: []string{"rates", "--in", p, "--outcome", "eos", "--by", "harness"}, exit: 1,
			stderr: []string{"small.csv:1: harness: missing column"}},
		{args: []string{"rates", "--in", p, "--outcome", "eos", "--by", "model", "--weight", "weight"}, exit: 1,
			stderr: []string{"small.csv:1: weight: missing column"}},
		{args: []string{"rates", "--in", p, "--outcome", "eos", "--by", "tem"}, exit: 1,
			stderr: []string{`unknown column "tem" (did you mean team`}},
		{args: []string{"tables", "--in", p, "--table", "3"}, exit: 1,
			stderr: []string{"Table 3 needs column(s) experiment"}},
		// report writes what the columns support and warns about the rest.
		{args: []string{"report", "--in", p, "--out", filepath.Join(filepath.Dir(p), "rep")},
			stderr: []string{"Table 3 needs column(s) experiment", "wrote "}},
		// validate still wants the full schema.
		{args: []string{"validate", p}, exit: 1, stdout: []string{"small.csv:1: experiment: missing required column"}},
	} {
		t.Run(strings.Join(tc.args[:1], " "), func(t *testing.T) {
			code, out, errs := runCmd(t, tc.args...)
			if code != tc.exit {
				t.Fatalf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.exit, errs)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("%v: stdout %q lacks %q", tc.args, out, s)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("%v: stderr %q lacks %q", tc.args, errs, s)
				}
			}
			if tc.args[0] == "report" {
				md, err := os.ReadFile(filepath.Join(filepath.Dir(p), "rep", "report.md"))
				if err != nil || !strings.Contains(string(md), "> Warning: Table 3 needs column(s) experiment") {
					t.Errorf("report.md: %v\n%.400s", err, md)
				}
			}
			if tc.exit != 0 && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("%v: error is more than one line: %q", tc.args, errs)
			}
		})
	}
}
