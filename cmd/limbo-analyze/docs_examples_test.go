package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
			if m := inlineExample.FindStringSubmatch(lines[i]); m != nil {
				if ex, ok := inlineOutput(f, lines, i, m[1]); ok {
					out = append(out, ex)
					i = ex.end - 1
				}
				continue
			}
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

// inlineExample is a step whose command is inline and whose output, in
// Markdown, follows as the page's own text: "**5. Evaluate.**
// `limbo-analyze hypotheses ... --format md`:".
var inlineExample = regexp.MustCompile("^\\*\\*\\d+\\. [^*]*\\*\\* `limbo-analyze ([^`]+--format md)`:$")

// inlineOutput returns the example of the inline command cmd at line i:
// its output is the paragraphs after it that are Markdown output
// (headings, tables, lists and the labelled lists "Warnings:"), up to the
// first paragraph of prose.
func inlineOutput(file string, lines []string, i int, cmd string) (docExample, bool) {
	args, err := splitShell(cmd)
	if err != nil || i+2 >= len(lines) || lines[i+1] != "" {
		return docExample{}, false
	}
	from, j := i+2, i+2
	for j < len(lines) {
		l := lines[j]
		out := strings.HasPrefix(l, "#") || strings.HasPrefix(l, "|") || strings.HasPrefix(l, "- ") ||
			(strings.HasSuffix(l, ":") && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "- "))
		if !out {
			break
		}
		for j < len(lines) && lines[j] != "" {
			j++
		}
		j++ // the blank line after the paragraph
	}
	end := j - 1 // the output ends before the blank line before the prose
	if end <= from {
		return docExample{}, false
	}
	return docExample{file: file, line: i + 1, args: args, want: strings.Join(lines[from:end], "\n"), from: from, end: end}, true
}

// notRun lists the worked examples of docs/*.md that this test does not
// run, with why (kept short: every other example runs).
var notRun = map[string]string{
	"power --sizes 0.25,0.5,1 --reps 50 --out /tmp/power": "150 simulations of the paper's design: minutes, beyond a unit test's budget",
}

// pageSetup makes, in the page's working directory, the files its
// examples read that the page makes by hand or in an earlier step.
var pageSetup = map[string]func(t *testing.T, page string){
	"proxy.md": func(t *testing.T, page string) {
		// The examples start limbo-analyze serve as the proxy's upstream,
		// and drive the scripted harness: both go first on PATH.
		bin := filepath.Dir(builtBinary(t))
		harness := filepath.Join(bin, "limbo-scripted-harness")
		if _, err := os.Stat(harness); err != nil {
			build := exec.Command("go", "build", "-o", harness, "./mcp/testdata/harness")
			build.Dir = filepath.Join(packageDir, "..", "..")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build harness: %v\n%s", err, out)
			}
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	},
	"prereg.md": func(t *testing.T, page string) {
		// Step 0 of the page: the simulated study ledger.
		const sim = "limbo-analyze simulate --design analysis/prereg/testdata/study-design.json --seed 1 --out study.jsonl"
		if !strings.Contains(page, "\n"+sim+"\n") {
			t.Fatalf("docs/prereg.md no longer makes study.jsonl with %q: update the test", sim)
		}
		args, _ := splitShell(strings.TrimPrefix(sim, "limbo-analyze "))
		if code, _, stderr := runCmd(t, args...); code != 0 {
			t.Fatalf("%s: %s", sim, stderr)
		}
		// Step 2: the finished file; step 3: it with pair_key misspelt.
		b, err := os.ReadFile("analysis/prereg/testdata/study.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("study.yaml", b, 0o644); err != nil {
			t.Fatal(err)
		}
		typo := strings.ReplaceAll(string(b), "pair_by: pair_key", "pair_by: pairkey")
		typo = strings.ReplaceAll(typo, "pair_by: [pair_key]", "pair_by: [pairkey]")
		if err := os.WriteFile("typo.yaml", []byte(typo), 0o644); err != nil {
			t.Fatal(err)
		}
	},
}

// lockTime is what varies from run to run in an example's output: the
// time a preregistration was locked.
var lockTime = regexp.MustCompile(`locked \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// normalize replaces what varies from run to run.
func normalize(s string) string { return lockTime.ReplaceAllString(s, "locked TIME") }

// workDir makes a working directory for a page's examples: the
// repository's top-level entries linked into a temporary directory (paths
// in the examples are relative to the repository root), so the files the
// examples write stay out of the repository.
func workDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "out" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Issue 28, items 10 and 11: every worked example of the docs prints what
// the page says it prints (as benchstat's doc test runs its manual),
// run in page order in one working directory per page, after the setup
// the page describes (pageSetup); -update rewrites the pages' outputs.
func TestDocExamples(t *testing.T) {
	byPage := map[string][]docExample{}
	var pages []string
	for _, ex := range docExamples(t) {
		if byPage[ex.file] == nil {
			pages = append(pages, ex.file)
		}
		byPage[ex.file] = append(byPage[ex.file], ex)
	}
	ran := 0
	for _, file := range pages {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			page, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(workDir(t))
			if setup := pageSetup[filepath.Base(file)]; setup != nil {
				setup(t, string(page))
			}
			for _, ex := range byPage[file] {
				cmd := strings.Join(ex.args, " ")
				if why, ok := notRun[cmd]; ok {
					t.Logf("%s:%d: not run: %s", file, ex.line, why)
					continue
				}
				ran++
				code, stdout, stderr := runCmd(t, ex.args...)
				// An example that fails shows its message, as a shell does.
				got := strings.TrimSuffix(stdout, "\n")
				if code != 0 {
					got = strings.TrimSuffix(stdout+stderr, "\n")
				}
				if normalize(got) == normalize(ex.want) {
					continue
				}
				if *update {
					b, _ := os.ReadFile(abs)
					lines := strings.Split(string(b), "\n")
					lines = append(lines[:ex.from], append(strings.Split(got, "\n"), lines[ex.end:]...)...)
					if err := os.WriteFile(abs, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
						t.Fatal(err)
					}
					t.Fatalf("%s:%d: output rewritten: run again for the others (line numbers moved)", file, ex.line)
				}
				t.Errorf("%s:%d: limbo-analyze %s (exit %d) prints\n%s\nthe page says\n%s", file, ex.line, cmd, code, got, ex.want)
			}
		})
	}
	if ran == 0 {
		t.Error("no worked example ran")
	}
}
