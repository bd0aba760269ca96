package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// Every limbo-analyze command line in the README's shell blocks names a
// command that exists and flags it accepts, so the README cannot drift from
// the CLI. (The commands themselves are run by hand and by .ci/run's test
// command through the help-example tests; running them all here would
// simulate the whole paper design several times.)
func TestREADMECommandsParse(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	inSh := false
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		if !inSh {
			continue
		}
		line, _, _ = strings.Cut(line, " #")
		var rest string
		var ok bool
		for _, p := range []string{"./limbo-analyze ", "go run ./cmd/limbo-analyze "} {
			if rest, ok = strings.CutPrefix(strings.TrimSpace(line), p); ok {
				break
			}
		}
		if !ok {
			continue
		}
		args, err := splitShell(rest)
		if err != nil {
			t.Errorf("README.md:%d: %v", i+1, err)
			continue
		}
		if strings.Contains(rest, "<(") || args[0] == "completion" {
			continue
		}
		n++
		root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
		cmd, flags, err := root.Find(args)
		if err != nil || cmd == root && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			t.Errorf("README.md:%d: %q: unknown command (%v)", i+1, line, err)
			continue
		}
		if err := cmd.ParseFlags(flags); err != nil && err.Error() != "pflag: help requested" {
			t.Errorf("README.md:%d: %q: %v", i+1, line, err)
			continue
		}
		if cmd.Args != nil {
			if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
				t.Errorf("README.md:%d: %q: %v", i+1, line, err)
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d limbo-analyze command lines in the README", n)
	}
}
