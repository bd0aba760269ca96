package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The examples in the help of the root, validate and export commands work
// as written (run from the repository root, with /tmp redirected to a
// temporary folder and "> FILE" to a file).
func TestHelpExamplesRun(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir("../..")
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	for _, c := range []*cobra.Command{newRootCmd(e), newValidateCmd(e), newExportCmd(e)} {
		_, ex, ok := strings.Cut(c.Long, "Examples:\n")
		if !ok {
			t.Errorf("%s: no examples", c.Name())
			continue
		}
		n := 0
		for _, line := range strings.Split(ex, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "limbo-analyze ") {
				continue
			}
			n++
			line = strings.ReplaceAll(line, "/tmp/", tmp+"/")
			cmdline, redirect, _ := strings.Cut(line, " > ")
			args := strings.Fields(cmdline)[1:]
			if testing.Short() && args[0] == "report" {
				continue // simulates the whole paper design; covered by report_test
			}
			var out, errb bytes.Buffer
			if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
				t.Errorf("%s: exit %d: %s", line, code, errb.String())
			}
			if redirect != "" {
				if err := os.WriteFile(filepath.Clean(redirect), out.Bytes(), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no runnable examples", c.Name())
		}
	}
}
