package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const powerData = "../../analysis/power/testdata/"

func TestPowerCLI(t *testing.T) {
	small := []string{"power", "--prereg", powerData + "small.yaml", "--design", powerData + "small.json", "--reps", "3", "--sizes", "0.5,1"}
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
		stderr []string
	}{
		{"text", small, 0, []string{"H-effect", "Smallest size reaching power 0.800", "Closed forms"}, nil},
		{"json", append(small, "--format", "json"), 0, []string{`"source": "simulation"`, `"smallest_size"`}, nil},
		{"latex", append(small, "--format", "latex"), 0, []string{"% Power: ", "\\begin{tabular}{llllll}", "\\bottomrule"}, nil},
		{"pilot", []string{"power", "--prereg", powerData + "pilot.yaml", "--pilot", powerData + "pilot.csv", "--reps", "3", "--sizes", "1", "--format", "csv"}, 0, []string{"closed_form,pilot"}, nil},
		{"bad sizes", append(small, "--sizes", "1,0"), 2, nil, []string{`--sizes: "0": want a multiplier > 0`}},
		{"bad scale", append(small, "--scale", "cells"), 2, nil, []string{`--scale "cells"`}},
		{"seeds not whole", append(small, "--scale", "seeds", "--sizes", "0.5,1"), 2, nil, []string{"--scale seeds counts whole runs"}},
		{"bad reps", append(small, "--reps", "0"), 2, nil, []string{"--reps must be ≥ 1"}},
		// Issue 28, item 6: bounds named in a usage error, not the machine's memory.
		{"negative jobs", append(small, "--jobs", "-5"), 2, nil, []string{"--jobs must be ≥ 0"}},
		{"too many jobs", append(small, "--jobs", "100000000"), 2, nil, []string{"--jobs 100000000: at most 256"}},
		{"too many reps", append(small, "--reps", "1000000000"), 2, nil, []string{"--reps 1000000000: at most 100000"}},
		{"size too large", append(small, "--sizes", "1e6"), 2, nil, []string{"--sizes 1e+06:", "at most 10000000"}},
		{"pilot size too large", []string{"power", "--prereg", powerData + "pilot.yaml", "--pilot", powerData + "pilot.csv", "--reps", "3", "--sizes", "1e9"}, 2, nil, []string{"at most 10000000"}},
		{"bad target", append(small, "--target", "1.2"), 2, nil, []string{"--target must be in (0, 1)"}},
		{"bad format", append(small, "--format", "xml"), 2, nil, []string{`--format "xml"`}},
		{"design and pilot", append(small, "--pilot", powerData+"pilot.csv"), 2, nil, []string{"--design and --scale do not apply"}},
		{"instances beyond the sandbox", append(small, "--scale", "instances", "--sizes", "2"), 1, nil, []string{"the sandbox has 13"}},
		{"bad prereg", []string{"power", "--prereg", powerData + "pilot.csv", "--reps", "1"}, 1, nil, []string{"pilot.csv:1:"}},
		{"missing design", []string{"power", "--design", "nope.json", "--reps", "1"}, 1, nil, []string{"nope.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.exit {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tt.exit, stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

// TestPowerOut: --out writes the tables and both figures, and the text
// file is what stdout shows.
func TestPowerOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "power")
	args := []string{"power", "--prereg", powerData + "small.yaml", "--design", powerData + "small.json", "--reps", "2", "--sizes", "1", "--jobs", "1"}
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--out", dir), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"power.txt", "power.csv", "power.json", "power.png", "power.svg"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	stdout.Reset()
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "power.txt"))
	if !bytes.Equal(txt, stdout.Bytes()) {
		t.Errorf("power.txt differs from stdout:\n%s\n---\n%s", txt, stdout.Bytes())
	}
}

// TestPowerHelpExamples runs the help's examples on the committed test
// data as written (from the repository root, /tmp redirected); the first,
// on the paper's design, is BenchmarkPaper200's run and is left to it.
func TestPowerHelpExamples(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir("../..")
	_, ex, _ := strings.Cut(newPowerCmd(&env{}).Long, "Examples:\n")
	n := 0
	for _, line := range strings.Split(ex, "\n") {
		line = strings.TrimSpace(line)
		if !strings.Contains(line, "testdata") {
			continue
		}
		n++
		args := strings.Fields(strings.ReplaceAll(line, "/tmp/", tmp+"/"))[1:]
		args = append(args, "--reps", "5") // the examples' default 100 is for people
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d: %s", line, code, stderr.String())
		}
	}
	if n != 2 {
		t.Errorf("%d examples on test data, want 2", n)
	}
}
