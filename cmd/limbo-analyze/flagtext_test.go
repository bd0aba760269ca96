package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagTextAllowed are the string literals outside cmd/ that may name a
// flag of limbo-analyze, by file (relative to the module root) and flag,
// each for a reason: they build a command line, they do not tell a user
// what to type.
var flagTextAllowed = map[string][]string{
	// The serve command line that drive starts for each episode.
	"mcp/drive.go": {"--transport", "--plan", "--ledger"},
	"mcp/job.go":   {"--think-s", "--max-calls", "--max-time-s", "--max-arg-bytes"},
	// The proxy command line that drive --proxy starts for each episode.
	"mcp/proxy/drive.go": {"--plan", "--ledger", "--contract", "--upstream"},
	// The provenance of a simulated report: the command that reproduces
	// its ledger.
	"report/generate.go": {"--design"},
	"report/replay.go":   {"--design"},
}

// flagRE matches a long flag in text.
var flagRE = regexp.MustCompile(`--[a-z][a-z0-9-]*[a-z0-9]`)

// TestLibraryTextNamesNoFlag fails when a string literal of a non-test Go
// file of a library package outside cmd/ names a flag of limbo-analyze: library errors,
// warnings and notes name spec fields (internal/fieldtext), and the
// command renders its flags at the edge (docs/design.md, "Packages and
// layers": libraries speak in their own terms). Doc comments are not
// literals and may name flags.
func TestLibraryTextNamesNoFlag(t *testing.T) {
	flags := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { flags["--"+f.Name] = true })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(&env{stdin: strings.NewReader(""), stdout: os.Stdout, stderr: os.Stderr}))
	delete(flags, "--help") // every command's; "see X --help" is not advice about a field
	if len(flags) < 80 {
		t.Fatalf("only %d flags found: the walk over the commands is broken", len(flags))
	}
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "cmd") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil // another program (bench/): its flags are its own
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range flagRE.FindAllString(s, -1) {
				if !flags[m] {
					continue
				}
				if slices.Contains(flagTextAllowed[rel], m) {
					seen[rel+" "+m] = true
					continue
				}
				t.Errorf("%s: %q names the flag %s; name the spec field ({Field}, internal/fieldtext) and let cmd render the flag", rel, s, m)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// An allowance no literal uses any more is stale.
	for file, fl := range flagTextAllowed {
		for _, m := range fl {
			if !seen[file+" "+m] {
				t.Errorf("flagTextAllowed: %s no longer names %s; drop the allowance", file, m)
			}
		}
	}
}
