// Command gen writes a large synthetic episode ledger for scale
// measurements: it reads a base ledger (typically the 25,930 episodes of
// `limbo-analyze simulate --episodes`) and writes it --reps times with
// replicate-suffixed episode_id, task and pair_key, so every row stays
// valid, episode ids stay unique, and the numbers of clusters (tasks) and
// matched pairs grow with the row count as they would in a bigger study.
// --extra K adds K string columns (x1…xK) with a few distinct values each.
//
// Usage:
//
//	go run ./bench/gen --base /tmp/scale/paper.parquet --rows 10000000 --out /tmp/scale/10m.parquet
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
)

func main() {
	base := flag.String("base", "", "base episode ledger (any format limbo-analyze reads)")
	out := flag.String("out", "", "ledger to write (.parquet, .csv or .jsonl)")
	rows := flag.Int("rows", 1_000_000, "rows to write")
	extra := flag.Int("extra", 0, "extra string columns x1…xK to add")
	flag.Parse()
	if *base == "" || *out == "" || *rows < 1 || *extra < 0 {
		fmt.Fprintln(os.Stderr, "usage: gen --base LEDGER --out FILE [--rows N] [--extra K]")
		os.Exit(2)
	}
	if err := run(*base, *out, *rows, *extra); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(base, out string, rows, extra int) error {
	var eps []ledger.Episode
	if err := ledger.ReadEpisodes(base, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		eps = append(eps, *e)
		return nil
	}); err != nil {
		return err
	}
	if len(eps) == 0 {
		return fmt.Errorf("%s: no episodes", base)
	}
	cols := make([]string, extra)
	for j := range cols {
		cols[j] = "x" + strconv.Itoa(j+1)
	}
	w, err := ledger.CreateEpisodes(out, "", cols)
	if err != nil {
		return err
	}
	defer w.Abort()
	var e ledger.Episode
	for i := range rows {
		rep, k := i/len(eps), i%len(eps)
		e = eps[k]
		if rep > 0 {
			suf := "~r" + strconv.Itoa(rep)
			e.EpisodeID += suf
			e.Task += suf
			e.PairKey += suf
		}
		if extra > 0 {
			// Deterministic, low-cardinality values, as lab/site/batch
			// columns of a real harness would be.
			e.Extra = make(map[string]string, extra)
			for j, c := range cols {
				e.Extra[c] = c + "-" + strconv.Itoa((i/(j+1))%(7+j))
			}
		}
		if err := w.Write(&e); err != nil {
			return err
		}
	}
	return w.Close()
}
