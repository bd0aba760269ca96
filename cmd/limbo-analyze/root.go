// Command limbo-analyze regenerates or ingests LIMBO episode ledgers and turns
// them into the paper's tables, figures, hypothesis verdicts and Parquet.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/report"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// version is the toolkit version, written into Parquet metadata and reports.
// Release builds may override it with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit codes (docs/design.md, Errors, exit codes and outputs).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks a mistake in how the command was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit status 2).
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// env carries the streams a command writes to, so tests run commands
// in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run executes the command line args and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	err = fieldtext.Rename(err, specFlags)
	// An error may quote text from the data: never a control sequence.
	fmt.Fprintf(stderr, "limbo-analyze: %s\n", report.PrintableLines(err.Error()))
	var ue usageError
	var ie *outfile.InputError
	if errors.As(err, &ue) || errors.As(err, &ie) || strings.HasPrefix(err.Error(), "unknown command ") {
		return exitUsage
	}
	return exitFailure
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "limbo-analyze",
		Short: "Reproduce and analyse LIMBO duplicate-side-effect experiments",
		Long: `limbo-analyze regenerates or ingests LIMBO episode ledgers and turns them into
the paper's tables, figures, hypothesis verdicts and Parquet for notebooks.

Ledgers are JSONL, CSV or Parquet (docs/ledger.md). Exit status: 0 success,
1 failure, 2 usage error (a bad flag value, or an output that is one of the
inputs, even through a link). serve and drive exit 0 when the ledger already
holds every planned episode. Data goes to stdout, messages to stderr.

Outputs appear atomically and a command's outputs together (all or none);
a failure leaves nothing behind.

The main job simulates the paper's design and writes every table, figure and
verdict (report.md, report.html, tables/, figures/) into a directory.

Examples:
  limbo-analyze report --out /tmp/limbo-report
  limbo-analyze validate testdata/ledger/sample.csv
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample.parquet
  limbo-analyze validate --summary /tmp/sample.parquet
  limbo-analyze version
  limbo-analyze completion bash > /tmp/limbo-analyze.bash`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Flag parse errors are usage errors (exit 2).
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%s (see '%s --help')", flagErrorText(err), c.CommandPath())}
	})
	root.AddCommand(
		newVersionCmd(e),
		newValidateCmd(e), newExportCmd(e), newSchemaCmd(e),
		newSimulateCmd(e), newGradeCmd(e),
		newMergeCmd(e),
		newProveCmd(e),
		newTablesCmd(e), newHypothesesCmd(e), newPreregCmd(e), newReportCmd(e),
		newRatesCmd(e), newMeansCmd(e), newPairedCmd(e), newShapleyCmd(e), newModelCmd(e), newTOSTCmd(e), newGateCmd(e), newRepeatsCmd(e),
		newServeCmd(e), newDriveCmd(e), newProxyCmd(e),
		newFiguresCmd(e), newViewCmd(e),
		newPowerCmd(e),
	)
	for _, c := range root.Commands() {
		// A ledger format no reader knows is a usage error (exit 2), for
		// every command that takes --in-format, before any input is opened.
		if pre := c.PreRunE; c.Flags().Lookup("in-format") != nil {
			c.PreRunE = func(c *cobra.Command, a []string) error {
				if v, _ := c.Flags().GetString("in-format"); !ledger.IsFormat(v) {
					return usagef("%s: --in-format %q: want jsonl, csv or parquet", c.Name(), v)
				}
				if pre == nil {
					return nil
				}
				return pre(c, a)
			}
		}
		// Wrong positional arguments are usage errors (exit 2) too.
		if args := c.Args; args != nil {
			c.Args = func(c *cobra.Command, a []string) error {
				if err := args(c, a); err != nil {
					return usageError{fmt.Errorf("%s: %w (see '%s --help')", c.Name(), err, c.CommandPath())}
				}
				return nil
			}
		}
	}
	return root
}

// flagParseRE matches pflag's message for a value that does not parse.
var flagParseRE = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: strconv\.Parse(Int|Uint|Float|Bool): parsing ".*": (.*)$`)

// flagErrorText rewrites pflag's parse errors without Go's strconv
// wording: `--table "x": want an integer`.
func flagErrorText(err error) string {
	m := flagParseRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	want := map[string]string{"Int": "an integer", "Uint": "a whole number ≥ 0", "Float": "a number", "Bool": "true or false"}[m[3]]
	name := m[2]
	if i := strings.LastIndex(name, "--"); i >= 0 {
		name = name[i:] // "-t, --table" → "--table"
	}
	if m[4] == "value out of range" {
		return fmt.Sprintf("%s %q: out of range", name, m[1])
	}
	return fmt.Sprintf("%s %q: want %s", name, m[1], want)
}

// render writes what write renders to stdout once all of it is rendered,
// so that a failure part-way prints nothing.
func render(e *env, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := e.stdout.Write(buf.Bytes())
	return err
}

// progressBar returns a bar of n steps on stderr when stderr is a terminal,
// else nil (piped output and tests get no bar).
func progressBar(e *env, n int, what string) *progressbar.ProgressBar {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
}

func newVersionCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the toolkit and ledger schema versions",
		Long: `version prints the toolkit version, the ledger schema version it reads and
writes, and the Go release it was built with. --format json prints them as
{"version", "schema_version", "go"}: the Python package reads it to refuse a
binary of another schema version.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text":
				_, err := fmt.Fprintf(e.stdout, "limbo-analyze %s (ledger schema %s, %s)\n", version, ledger.SchemaVersion, runtime.Version())
				return err
			case "json":
				b, err := json.Marshal(struct {
					Version       string `json:"version"`
					SchemaVersion string `json:"schema_version"`
					Go            string `json:"go"`
				}{version, ledger.SchemaVersion, runtime.Version()})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(e.stdout, "%s\n", b)
				return err
			}
			return usagef("version: --format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

// checkOutputs refuses, before any work is done, an output that is one of
// the inputs however it is spelled (the same file by device and inode,
// through symlinks and hard links): exit status 2, nothing written.
func checkOutputs(cmd string, outputs, inputs []string) error {
	for _, o := range outputs {
		if o == "" || o == "-" {
			continue
		}
		if err := outfile.CheckNotInput(o, inputs...); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd, err)}
		}
	}
	return nil
}
