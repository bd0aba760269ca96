package main

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/report/view"
)

func newViewCmd(e *env) *cobra.Command {
	var opt view.Options
	var out, serve string
	var allowRemote bool
	cmd := &cobra.Command{
		Use:   "view LEDGER... (--out DIR | --serve 127.0.0.1:PORT)",
		Short: "Browse episodes: a static site with filters, rates and each episode's timeline",
		Long: `view turns one or more ledgers into an episode viewer: a self-contained
static site (plain HTML, CSS and JavaScript; no network, it opens from file://)
written to DIR with --out, or served with --serve.

The list shows every episode with its design fields and grades, filters by
model, harness, condition, contract, fault mode, template, outcome and more,
and updates the counts and rates of the filtered set as the filters change;
the filters live in the URL, so a view can be shared. An episode's page draws
its timeline on the virtual clock as Figure 1 does: each call with its
arguments and what the agent observed (timeouts and errors marked), the
injected fault and where it struck, each effect on the ledger with its origin
(the issuing call, a late commit, a redelivery, a keyed repeat absorbed), the
final report against the grader's verdict, and the verdict in words ("two
charges for one logical charge: calls 2 and 5"). ← and → (or k and j) move to
the previous and next episode of the filtered list; Esc goes back to it.

Raw JSONL ledgers are graded on read. A Parquet export is read with its
calls and effects tables (X.calls.parquet, X.effects.parquet) beside it, a
partitioned export DIR with DIR.calls/ and DIR.effects/ beside it; an
episode table without calls (CSV, graded JSONL, Parquet alone) gives the list
and the grades only, and the pages say so. Beyond --max-episodes the site
keeps every k-th episode and says it is a sample.

--out writes the site atomically (a temporary directory, then renamed) with a
manifest of its files (.limbo-manifest), and replaces DIR only if it holds
nothing but an earlier site's files; a DIR holding any other file, at any
depth, is refused (exit 2) and left alone. --serve listens on
the loopback interface unless --allow-remote is given (the pages show every
argument the agents sent), answers serve's Host and Origin rules and gives the
data files only to the site's own pages; stop it with Ctrl-C.

Examples:
  limbo-analyze view testdata/ledger/sample.jsonl --out /tmp/limbo-view
  limbo-analyze simulate --out run.jsonl && limbo-analyze view run.jsonl --serve 127.0.0.1:8080
  limbo-analyze export --in run.jsonl --out run.parquet && limbo-analyze view run.parquet --out site`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (out == "") == (serve == "") {
				return usagef("view: give one of --out DIR or --serve HOST:PORT")
			}
			if opt.MaxEpisodes < 1 {
				return usagef("view: --max-episodes %d: want at least 1", opt.MaxEpisodes)
			}
			if serve != "" {
				addr, err := view.ServeAddr(serve, allowRemote)
				if ae := (*localhttp.AddrError)(nil); errors.As(err, &ae) && ae.NotLoopback {
					return usagef("view: --serve %v; add --allow-remote to serve beyond this machine", err)
				} else if err != nil {
					return usagef("view: --serve %v", err)
				}
				serve = addr
			}
			if out != "" {
				var ins []string
				for _, l := range args {
					ins = append(ins, ledger.Files(l)...)
				}
				if err := checkOutputs("view", []string{out}, ins); err != nil {
					return err
				}
				var fe *outfile.ForeignError
				if err := view.CheckOut(out); errors.As(err, &fe) {
					return ownedError("view", err)
				}
			}
			opt.Warn = func(p ledger.Problem) { fmt.Fprintf(e.stderr, "limbo-analyze: %v\n", p) }
			return runView(cmd.Context(), e, args, opt, out, serve)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory to write the site into")
	f.StringVar(&serve, "serve", "", "serve the site at HOST:PORT instead (loopback by default, e.g. 127.0.0.1:8080)")
	f.BoolVar(&allowRemote, "allow-remote", false, "let --serve listen on a non-loopback address")
	f.IntVar(&opt.MaxEpisodes, "max-episodes", view.DefaultMaxEpisodes, "largest number of episodes in the site; beyond it every k-th episode is kept")
	f.StringVar(&opt.Format, "in-format", "", "ledger format: jsonl, csv or parquet (default: from each file's extension)")
	f.BoolVar(&opt.Strict, "strict", false, "treat ledger plausibility warnings as errors")
	return cmd
}

// runView builds the site of the ledgers and writes it into out or
// serves it at addr.
func runView(ctx context.Context, e *env, ledgers []string, opt view.Options, out, addr string) error {
	site, err := view.Build(ledgers, opt)
	if err != nil {
		return err
	}
	for _, n := range site.Data.Meta.Notes {
		fmt.Fprintf(e.stderr, "limbo-analyze: view: %s\n", n)
	}
	if out != "" {
		note, err := site.WriteNote(out)
		var fe *outfile.ForeignError
		if errors.As(err, &fe) {
			return ownedError("view", fe)
		} else if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		fmt.Fprintln(e.stderr, note)
		return nil
	}
	ctx, stop := signalContext(ctx)
	defer stop()
	err = site.ListenAndServe(ctx, addr, func(a net.Addr) {
		fmt.Fprintf(e.stderr, "serving %d episodes at http://%s/ (Ctrl-C to stop)\n", site.Data.Meta.Shown, a)
	})
	if err != nil {
		return fmt.Errorf("view: --serve: %w", err)
	}
	return nil
}
