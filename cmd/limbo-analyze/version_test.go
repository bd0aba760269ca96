package main

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The Python package reads version --format json to refuse a binary of
// another ledger schema (issue 36): the fields it reads must be there.
func TestVersionJSON(t *testing.T) {
	code, stdout, stderr := runCmd(t, "version", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%q: %v", stdout, err)
	}
	want := map[string]string{"version": version, "schema_version": ledger.SchemaVersion, "go": runtime.Version()}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %q, want %q", k, v[k], w)
		}
	}
	if code, _, stderr := runCmd(t, "version", "--format", "yaml"); code != exitUsage {
		t.Errorf("--format yaml: exit %d, want %d (%s)", code, exitUsage, stderr)
	}
}
