package prereg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"

	"github.com/limbo-toolkit/limbo/ledger"
)

// TestMalformed parses every file under testdata/malformed: each must fail
// with an error on the line its first comment names ("# want: LINE: TEXT"),
// whose message contains TEXT. The empty file wants line 1.
func TestMalformed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "malformed", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d malformed files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantLine, wantText := 1, "empty"
			if first, _, _ := bytes.Cut(data, []byte("\n")); bytes.HasPrefix(first, []byte("# want: ")) {
				l, text, ok := strings.Cut(string(first[len("# want: "):]), ": ")
				if !ok {
					t.Fatalf("bad want comment %q", first)
				}
				if wantLine, err = strconv.Atoi(l); err != nil {
					t.Fatal(err)
				}
				wantText = text
			}
			f, err := Parse(path, data)
			if err == nil {
				t.Fatalf("parsed without error: %+v", f)
			}
			if f != nil {
				t.Error("a File came back with the errors")
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T, want ErrorList", err)
			}
			for _, e := range list {
				if e.File != path {
					t.Errorf("error names file %q, want %q", e.File, path)
				}
				if e.Line == wantLine && strings.Contains(e.Msg, wantText) {
					return
				}
			}
			t.Errorf("no error at line %d containing %q; got:\n%v", wantLine, wantText, err)
		})
	}
}

// TestValidFiles parses the shipped files and the skeleton of the docs.
func TestValidFiles(t *testing.T) {
	for _, path := range []string{"paper.yaml", filepath.Join("testdata", "estimands.yaml"), filepath.Join("testdata", "study.yaml")} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(path, data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(f.Hypotheses) == 0 || len(f.SHA256) != 64 {
			t.Errorf("%s: %d hypotheses, sha %q", path, len(f.Hypotheses), f.SHA256)
		}
	}
}

// FuzzParse checks that no input panics, and that an accepted file
// evaluates its rules' strings without panicking either.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "malformed", "*.yaml"))
	ledgerSeeds, _ := filepath.Glob(filepath.Join("testdata", "malformed-ledger", "*.yaml"))
	seeds = append(seeds, ledgerSeeds...)
	seeds = append(seeds, "paper.yaml", filepath.Join("testdata", "estimands.yaml"), filepath.Join("testdata", "models.yaml"), filepath.Join("testdata", "calls.yaml"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range list {
				if e.Line < 1 {
					t.Fatalf("error without a line: %v", e)
				}
			}
			return
		}
		for _, h := range file.Hypotheses {
			for _, p := range h.Parts {
				if p.Rule != nil {
					_ = p.Rule.String(p.Estimand.Kind)
				}
			}
		}
		// The ledger checks walk every expression and level.
		for _, e := range file.WhereLevelProblems(table.NewData(fuzzEpisodes)) {
			if e.Line < 1 {
				t.Fatalf("level problem without a line: %v", e)
			}
		}
	})
}

// fuzzEpisodes are a few episodes for the fuzzed files' level checks.
var fuzzEpisodes = []*ledger.Episode{
	{EpisodeID: "a", Condition: "guard", FaultMode: ledger.FaultTimeoutPost, Model: "m1"},
	{EpisodeID: "b", Condition: "vanilla", FaultMode: ledger.FaultNone, Model: "m2"},
}
