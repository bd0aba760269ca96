package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/outfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

type simulateOptions struct {
	design   string // "paper" or a manifest file
	seed     uint64
	out      string // raw JSONL ledger; "-" for stdout
	episodes string // graded episode table (.parquet, .csv, .jsonl); "" for none
	jobs     int
	shard    string // "I/N", 1 ≤ I ≤ N
	profiles string // profile file; "" for the embedded one
}

func newSimulateCmd(e *env) *cobra.Command {
	var o simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate --out LEDGER.jsonl",
		Short: "Regenerate episode ledgers with simulated agents in the sandbox",
		Long: `simulate runs an experiment design (the paper's by default) with simulated
agents against the LIMBO sandbox and writes the raw ledger: one JSON line per
episode, in design order, with its calls and committed effects nested. Run
metadata (design, seed, shard, versions, counts) goes in a sidecar
LEDGER.meta.json beside it. With --episodes it also writes the graded episode
table (Parquet, CSV or graded JSONL, by extension).

The same seed gives the same bytes whatever --jobs; the shards of a run
(--shard 1/4 … 4/4) concatenated equal the whole run. --design takes "paper"
(the embedded reference decomposition R5, 25,930 episodes) or a manifest file
of the same shape (see docs/simulation.md); --profiles replaces the embedded
model profiles.

Examples:
  limbo-analyze simulate --out paper.jsonl
  limbo-analyze simulate --design paper --seed 7 --out run.jsonl --episodes run.parquet --jobs 2
  limbo-analyze simulate --out part2.jsonl --shard 2/4
  limbo-analyze simulate --design my-grid.json --profiles my-models.json --out mine.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usagef("simulate: --out is required")
			}
			if o.jobs < 0 {
				return usagef("simulate: --jobs must be ≥ 0")
			}
			if _, _, err := parseShard(o.shard); err != nil {
				return usagef("simulate: --shard: %v", err)
			}
			if o.out != "-" && !isJSONLName(o.out) {
				return usagef("simulate: --out %s: the raw ledger is JSONL; name it .jsonl (or - for stdout)", o.out)
			}
			if ext := strings.ToLower(filepath.Ext(o.episodes)); o.episodes != "" && !slices.Contains([]string{".parquet", ".csv", ".jsonl", ".ndjson"}, ext) {
				return usagef("simulate: --episodes %s: want a .parquet, .csv or .jsonl name", o.episodes)
			}
			outs := map[string]string{"--out": o.out, "--episodes": o.episodes}
			if o.out != "-" {
				outs["the sidecar"] = metaPath(o.out)
			}
			if err := checkOutputsDistinct("simulate", outs); err != nil {
				return err
			}
			ins := []string{o.profiles}
			if o.design != "paper" {
				ins = append(ins, o.design)
			}
			if err := checkOutputs("simulate", []string{o.out, o.episodes, metaPath(o.out)}, ins); err != nil {
				return err
			}
			return runSimulate(o, e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.design, "design", "paper", `experiment design: "paper" or a manifest file`)
	f.Uint64Var(&o.seed, "seed", 1, "run seed")
	f.StringVar(&o.out, "out", "", `raw ledger to write (JSONL; "-" for stdout)`)
	f.StringVar(&o.episodes, "episodes", "", "also write the graded episode table (.parquet, .csv or .jsonl)")
	f.IntVar(&o.jobs, "jobs", 0, "parallel workers (0 = number of CPUs)")
	f.StringVar(&o.shard, "shard", "", "write only shard I of N (I/N, 1-based) of the design's episodes")
	f.StringVar(&o.profiles, "profiles", "", "model profile file (default: the embedded paper profiles)")
	return cmd
}

// parseShard parses "I/N" (1 ≤ I ≤ N); "" is the whole run, 1/1.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("want I/N with 1 ≤ I ≤ N, got %q", s)
	}
	return i, n, nil
}

// shardRange returns the episode range [lo, hi) of shard i of n over total.
func shardRange(total, i, n int) (lo, hi int) {
	return int(int64(total) * int64(i-1) / int64(n)), int(int64(total) * int64(i) / int64(n))
}

// loadSimulator builds the simulator a run needs, validating the design and
// profiles before anything is written.
func loadSimulator(designArg, profilesArg string, seed uint64) (*design.Simulator, error) {
	m, err := design.Load(designArg)
	if err != nil {
		if _, serr := os.Stat(designArg); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("--design %s: not a built-in design (paper) and no such manifest file", designArg)
		}
		return nil, err
	}
	prof := agent.DefaultProfiles()
	if profilesArg != "" {
		if prof, err = agent.LoadProfiles(profilesArg); err != nil {
			return nil, err
		}
	}
	plan, err := design.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", designArg, err)
	}
	sim := design.NewSimulator(plan, prof, seed)
	if err := sim.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", designArg, err)
	}
	return sim, nil
}

// simMeta is the sidecar LEDGER.meta.json: everything needed to know what a
// ledger is and to regenerate it, and nothing that changes between runs.
type simMeta struct {
	Toolkit       string `json:"toolkit_version"`
	Schema        string `json:"ledger_schema"`
	Design        string `json:"design"`
	DesignName    string `json:"design_name"`
	DesignSHA256  string `json:"design_sha256"`
	ProfileSHA256 string `json:"profiles_sha256"`
	Seed          uint64 `json:"seed"`
	Shard         string `json:"shard"`
	FirstEpisode  int    `json:"first_episode"`
	Episodes      int    `json:"episodes"`
	DesignTotal   int    `json:"design_total"`
}

func runSimulate(o simulateOptions, e *env) error {
	si, sn, _ := parseShard(o.shard)
	sim, err := loadSimulator(o.design, o.profiles, o.seed)
	if err != nil {
		return err
	}
	total := sim.Plan.Len()
	lo, hi := shardRange(total, si, sn)
	jobs := o.jobs
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}

	// The raw ledger, its sidecar and the episode table are one unit: all
	// appear, or none (a failure on the last leaves no first behind).
	u := outfile.NewUnit(o.design, o.profiles)
	defer u.Abort() // no-op after Commit
	var out io.Writer
	var raw *outfile.File
	if o.out == "-" {
		out = e.stdout
	} else {
		if raw, err = u.Create(o.out); err != nil {
			return err
		}
		out = raw
	}
	bw := bufio.NewWriterSize(out, 1<<16)
	var epw ledger.EpisodeWriter
	if o.episodes != "" {
		if epw, err = ledger.CreateEpisodesIn(u, o.episodes, "", nil); err != nil {
			return err
		}
		defer epw.Abort()
	}

	var bar *progressbar.ProgressBar
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar = progressbar.NewOptions(hi-lo, progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("simulate"), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
	}

	if err := generate(sim, lo, hi, jobs, epw != nil, func(c *chunk) error {
		if _, err := bw.Write(c.buf); err != nil {
			return err
		}
		if epw != nil {
			for i := range c.eps {
				if err := epw.Write(&c.eps[i]); err != nil {
					return err
				}
			}
		}
		if bar != nil {
			bar.Add(c.hi - c.lo)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if epw != nil {
		if err := epw.Close(); err != nil {
			return err
		}
	}
	if epw != nil && formatByExt(o.episodes) == "parquet" {
		cp, ep := ledger.SiblingPaths(o.episodes)
		if err := u.Remove(cp); err != nil {
			return err
		}
		if err := u.Remove(ep); err != nil {
			return err
		}
	}
	if raw != nil {
		if err := raw.Close(); err != nil {
			return err
		}
		if err := writeMeta(u, o, sim, si, sn, lo, hi); err != nil {
			return err
		}
	}
	if err := u.Commit(); err != nil {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	return nil
}

// metaPath is LEDGER.meta.json for LEDGER.jsonl (the extension replaced).
func metaPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".meta.json"
}

// writeMeta adds the sidecar of the run to the unit u.
func writeMeta(u *outfile.Unit, o simulateOptions, sim *design.Simulator, si, sn, lo, hi int) error {
	dm, _ := json.Marshal(sim.Plan.Manifest)
	pm, _ := json.Marshal(sim.Profiles)
	dh, ph := sha256.Sum256(dm), sha256.Sum256(pm)
	m := simMeta{
		Toolkit: version, Schema: ledger.SchemaVersion,
		Design: o.design, DesignName: sim.Plan.Manifest.Name,
		DesignSHA256: hex.EncodeToString(dh[:]), ProfileSHA256: hex.EncodeToString(ph[:]),
		Seed: o.seed, Shard: fmt.Sprintf("%d/%d", si, sn), FirstEpisode: lo, Episodes: hi - lo,
		DesignTotal: sim.Plan.Len(),
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return u.WriteFile(metaPath(o.out), append(b, '\n'))
}

// chunk is a contiguous run of episodes simulated by one worker: their raw
// JSONL lines and, when grading, their graded rows.
type chunk struct {
	lo, hi int
	buf    []byte
	eps    []ledger.Episode
	err    error
	done   chan struct{}
}

const chunkSize = 64

// generate simulates episodes [lo, hi) with jobs workers and passes chunks to
// emit strictly in design order (a reorder buffer of at most 2·jobs chunks
// keeps memory bounded). Episode bytes depend only on the index, so the
// output is the same for any jobs.
func generate(sim *design.Simulator, lo, hi, jobs int, grade bool, emit func(*chunk) error) error {
	if jobs < 1 {
		jobs = 1
	}
	queue := make(chan *chunk, 2*jobs)
	work := make(chan *chunk)
	var stop atomic.Bool
	go func() {
		for a := lo; a < hi; a += chunkSize {
			if stop.Load() {
				break
			}
			c := &chunk{lo: a, hi: min(a+chunkSize, hi), done: make(chan struct{})}
			queue <- c
			work <- c
		}
		close(work)
		close(queue)
	}()
	for range jobs {
		go func() {
			var buf bytes.Buffer
			rw := ledger.NewRawWriter(&buf)
			for c := range work {
				if !stop.Load() {
					buf.Reset()
					c.err = simulateChunk(sim, c, rw, grade)
					c.buf = bytes.Clone(buf.Bytes())
				}
				close(c.done)
			}
		}()
	}
	var first error
	for c := range queue {
		<-c.done
		if first != nil {
			continue
		}
		if c.err != nil {
			first = c.err
		} else {
			first = emit(c)
		}
		if first != nil {
			stop.Store(true)
		}
	}
	return first
}

func simulateChunk(sim *design.Simulator, c *chunk, rw *ledger.RawWriter, grade bool) error {
	if grade {
		c.eps = make([]ledger.Episode, 0, c.hi-c.lo)
	}
	for i := c.lo; i < c.hi; i++ {
		raw, err := sim.Episode(i)
		if err != nil {
			return err
		}
		if err := rw.Write(raw); err != nil {
			return fmt.Errorf("episode %d: %w", i, err)
		}
		if grade {
			ep, err := sandbox.Grade(raw)
			if err != nil {
				return fmt.Errorf("episode %d (%s): grade: %w", i, raw.EpisodeID, err)
			}
			c.eps = append(c.eps, ep)
		}
	}
	return nil
}

// isJSONLName reports whether path names a JSONL file (.jsonl or .ndjson).
func isJSONLName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".jsonl" || ext == ".ndjson"
}
