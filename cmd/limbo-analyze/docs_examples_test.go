package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docExample is a worked example of the docs: a fenced block that starts
// with "$ limbo-analyze ...", the rest of the block being what it prints.
type docExample struct {
	file      string
	line      int // of the command
	args      []string
	want      string
	from, end int // the block's output lines [from, end) in the file
}

// docExamples returns the worked examples of the README and docs/*.md.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	var out []docExample
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "```") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "$ limbo-analyze ") {
				continue
			}
			ex := docExample{file: f, line: i + 2}
			cmd := strings.TrimPrefix(lines[i+1], "$ limbo-analyze ")
			j := i + 2
			for strings.HasSuffix(cmd, `\`) && j < len(lines) {
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[j])
				j++
			}
			cmd, _, _ = strings.Cut(cmd, " # ")
			args, err := splitShell(cmd)
			if err != nil {
				t.Errorf("%s:%d: %v", f, ex.line, err)
				continue
			}
			ex.args, ex.from = args, j
			for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
				j++
			}
			ex.end = j
			ex.want = strings.Join(lines[ex.from:j], "\n")
			out = append(out, ex)
			i = j
		}
	}
	return out
}

// runnable reports whether every input an example names is a file of
// the repository (some examples read files the page makes by hand, such
// as a ledger simulated in an earlier step) and it writes nothing: those
// run here; the others are listed in the log.
func (ex docExample) runnable() bool {
	if len(ex.args) > 1 && ex.args[0] == "prereg" && (ex.args[1] == "lock" || ex.args[1] == "init") {
		return false // writes FILE.lock, or FILE
	}
	for _, a := range ex.args {
		if a == "--out" || strings.HasPrefix(a, "--out=") {
			return false
		}
		if !strings.HasPrefix(a, "-") && strings.Contains(a, ".") && !strings.Contains(a, ",") {
			if _, err := os.Stat(filepath.Join("../..", a)); err != nil {
				return false
			}
		}
	}
	return true
}

// Issue 28, item 10: every worked example of the docs that can run from
// the repository's files prints what the page says it prints (as
// benchstat's doc test runs its manual); -update rewrites the pages'
// outputs. Paths in the examples are relative to the repository root.
func TestDocExamples(t *testing.T) {
	ran := 0
	for _, ex := range docExamples(t) {
		if !ex.runnable() {
			t.Logf("%s:%d: not run here (it reads a file the page makes or writes files): %v", ex.file, ex.line, ex.args)
			continue
		}
		ran++
		args := make([]string, len(ex.args))
		for i, a := range ex.args {
			if _, err := os.Stat(filepath.Join("../..", a)); err == nil && !strings.HasPrefix(a, "-") {
				a = filepath.Join("../..", a)
			}
			args[i] = a
		}
		code, stdout, stderr := runCmd(t, args...)
		got := strings.TrimSuffix(stdout, "\n")
		if code != 0 {
			t.Errorf("%s:%d: exit %d: %s", ex.file, ex.line, code, stderr)
			continue
		}
		if got == ex.want {
			continue
		}
		if *update {
			b, _ := os.ReadFile(ex.file)
			lines := strings.Split(string(b), "\n")
			lines = append(lines[:ex.from], append(strings.Split(got, "\n"), lines[ex.end:]...)...)
			if err := os.WriteFile(ex.file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s:%d: output rewritten", ex.file, ex.line)
			return // line numbers moved: run again for the others
		}
		t.Errorf("%s:%d: limbo-analyze %s prints\n%s\nthe page says\n%s", ex.file, ex.line, strings.Join(ex.args, " "), got, ex.want)
	}
	if ran == 0 {
		t.Error("no worked example ran")
	}
}
