package design

import (
	"bufio"
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
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// ParseShard parses "I/N" (1 ≤ I ≤ N); "" is the whole run, 1/1.
func ParseShard(s string) (i, n int, err error) {
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

// ShardRange returns the episode range [lo, hi) of shard i of n over total.
// The split is contiguous, so the shards concatenated in order are the
// whole run; simulate and drive share it.
func ShardRange(total, i, n int) (lo, hi int) {
	return int(int64(total) * int64(i-1) / int64(n)), int(int64(total) * int64(i) / int64(n))
}

// MetaPath is LEDGER.meta.json for LEDGER.jsonl (the extension replaced):
// the sidecar of a simulated or driven ledger.
func MetaPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".meta.json"
}

// SidecarSeed is the run seed recorded in the sidecar LEDGER.meta.json
// beside the ledger at path; "" when path is "" or the sidecar is missing
// or records none (a ledger from another harness).
func SidecarSeed(path string) string {
	if path == "" {
		return ""
	}
	b, err := readlimit.ReadFile(MetaPath(path), "a run's sidecar", readlimit.Manifest)
	if err != nil {
		return ""
	}
	var m struct {
		Seed *uint64 `json:"seed"`
	}
	if json.Unmarshal(b, &m) != nil || m.Seed == nil {
		return ""
	}
	return strconv.FormatUint(*m.Seed, 10)
}

// LoadSimulator builds the simulator a run needs from a design argument
// (a built-in design's name, Builtin, or a manifest file) and a profile file ("" for the embedded
// profiles), validating both before anything is written.
func LoadSimulator(designArg, profilesArg string, seed uint64) (*Simulator, error) {
	m, err := Load(designArg)
	if err != nil {
		if _, serr := os.Stat(designArg); errors.Is(serr, fs.ErrNotExist) {
			return nil, fieldtext.New("Design", "{Design} %s: not a built-in design (paper, replay) and no such manifest file", designArg)
		}
		return nil, err
	}
	prof := agent.DefaultProfiles()
	if profilesArg != "" {
		if prof, err = agent.LoadProfiles(profilesArg); err != nil {
			return nil, err
		}
	}
	plan, err := Compile(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", designArg, err)
	}
	sim := NewSimulator(plan, prof, seed)
	if err := sim.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", designArg, err)
	}
	return sim, nil
}

// Meta is the sidecar LEDGER.meta.json of a simulated ledger: everything
// needed to know what a ledger is and to regenerate it, and nothing that
// changes between runs.
type Meta struct {
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

// Marshal returns the sidecar's bytes as written: indented JSON and a
// newline.
func (m *Meta) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// RunOptions describe one simulate run.
type RunOptions struct {
	Design   string    // the design argument as given ("paper" or a file), recorded in the sidecar
	Profiles string    // profile file; "" for the embedded profiles (an input of the output unit)
	Out      string    // raw JSONL ledger; "-" writes to Stdout and no sidecar
	Stdout   io.Writer // where Out "-" goes
	Episodes string    // graded episode table (.parquet, .csv, .jsonl); "" for none
	Jobs     int       // parallel workers; 0 for GOMAXPROCS
	Shard    string    // "I/N"; "" for the whole run
	Toolkit  string    // toolkit version recorded in the sidecar and the Parquet episode table
	Progress func(n int)
}

// Run simulates shard o.Shard of sim's plan and writes the raw ledger, its
// sidecar and the episode table as one unit: all appear, or none (a
// failure on the last leaves no first behind).
func Run(sim *Simulator, o RunOptions) error {
	si, sn, err := ParseShard(o.Shard)
	if err != nil {
		return err
	}
	lo, hi := ShardRange(sim.Plan.Len(), si, sn)
	u := outfile.NewUnit(o.Design, o.Profiles)
	defer u.Abort() // no-op after Commit
	var out io.Writer
	var raw *outfile.File
	if o.Out == "-" {
		out = o.Stdout
	} else {
		if raw, err = u.Create(o.Out); err != nil {
			return err
		}
		out = raw
	}
	bw := bufio.NewWriterSize(out, 1<<16)
	var epw ledger.EpisodeWriter
	if o.Episodes != "" {
		if epw, err = ledger.CreateEpisodesWith(o.Episodes, "", nil, ledger.WriteOptions{Unit: u, ToolkitVersion: o.Toolkit, Groups: sim.Plan.Groups()}); err != nil {
			return err
		}
		defer epw.Abort()
	}
	jobs := o.Jobs
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if err := Generate(sim, lo, hi, jobs, epw != nil, func(c *Chunk) error {
		if _, err := bw.Write(c.Buf); err != nil {
			return err
		}
		if epw != nil {
			for i := range c.Eps {
				if err := epw.Write(&c.Eps[i]); err != nil {
					return err
				}
			}
		}
		if o.Progress != nil {
			o.Progress(c.Hi - c.Lo)
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
		if filepath.Ext(o.Episodes) == ".parquet" {
			// Siblings of an earlier raw export would no longer match.
			cp, ep := ledger.SiblingPaths(o.Episodes)
			if err := u.Remove(cp); err != nil {
				return err
			}
			if err := u.Remove(ep); err != nil {
				return err
			}
		}
	}
	if raw != nil {
		if err := raw.Close(); err != nil {
			return err
		}
		dm, _ := json.Marshal(sim.Plan.Manifest)
		pm, _ := json.Marshal(sim.Profiles)
		dh, ph := sha256.Sum256(dm), sha256.Sum256(pm)
		m := Meta{
			Toolkit: o.Toolkit, Schema: ledger.SchemaVersion,
			Design: o.Design, DesignName: sim.Plan.Manifest.Name,
			DesignSHA256: hex.EncodeToString(dh[:]), ProfileSHA256: hex.EncodeToString(ph[:]),
			Seed: sim.Seed, Shard: fmt.Sprintf("%d/%d", si, sn), FirstEpisode: lo, Episodes: hi - lo,
			DesignTotal: sim.Plan.Len(),
		}
		b, err := m.Marshal()
		if err != nil {
			return err
		}
		if err := u.WriteFile(MetaPath(o.Out), b); err != nil {
			return err
		}
	}
	return u.Commit()
}

// Chunk is a contiguous run of episodes [Lo, Hi) simulated by one worker:
// their raw JSONL lines and, when grading, their graded rows. Buf is valid
// until the chunk's emit returns: its storage then holds a later chunk's
// lines.
type Chunk struct {
	Lo, Hi int
	Buf    []byte
	Eps    []ledger.Episode
	err    error
	done   chan struct{}
}

const chunkSize = 64

// Episodes simulates the whole design designArg ("paper" or a manifest
// file, with the embedded profiles) with seed on jobs workers and passes
// every graded episode, in design order, to fn; the episode is reused
// after fn returns.
func Episodes(designArg string, seed uint64, jobs int, fn func(*ledger.Episode) error) error {
	sim, err := LoadSimulator(designArg, "", seed)
	if err != nil {
		return err
	}
	// fn sees graded episodes only: the raw lines (a fifth of the
	// simulation's CPU) are not made.
	return generate(sim, 0, sim.Plan.Len(), jobs, false, true, func(c *Chunk) error {
		for i := range c.Eps {
			if err := fn(&c.Eps[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// Generate simulates episodes [lo, hi) with jobs workers and passes chunks
// to emit strictly in design order (a reorder buffer of at most 2·jobs
// chunks keeps memory bounded). Episode bytes depend only on the index, so
// the output is the same for any jobs. A chunk's Buf is reused once emit
// returns: emit copies what it keeps.
func Generate(sim *Simulator, lo, hi, jobs int, grade bool, emit func(*Chunk) error) error {
	return generate(sim, lo, hi, jobs, true, grade, emit)
}

// generate is Generate that makes the chunks' raw lines (Chunk.Buf) only
// when raw is set.
func generate(sim *Simulator, lo, hi, jobs int, raw, grade bool, emit func(*Chunk) error) error {
	if jobs < 1 {
		jobs = 1
	}
	queue := make(chan *Chunk, 2*jobs)
	work := make(chan *Chunk)
	// The raw lines' buffers, handed back once emitted: at most the
	// reorder buffer's and the workers' chunks hold one at a time, so
	// after the first few no chunk allocates its lines' storage.
	free := make(chan []byte, 3*jobs)
	var stop atomic.Bool
	go func() {
		for a := lo; a < hi; a += chunkSize {
			if stop.Load() {
				break
			}
			c := &Chunk{Lo: a, Hi: min(a+chunkSize, hi), done: make(chan struct{})}
			queue <- c
			work <- c
		}
		close(work)
		close(queue)
	}()
	for range jobs {
		go func() {
			for c := range work {
				if !stop.Load() {
					if raw {
						select {
						case b := <-free:
							c.Buf = b[:0]
						default:
							c.Buf = []byte{}
						}
					}
					c.err = simulateChunk(sim, c, raw, grade)
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
		if c.Buf != nil {
			select {
			case free <- c.Buf:
			default:
			}
			c.Buf = nil
		}
		if first != nil {
			stop.Store(true)
		}
	}
	return first
}

// simulateChunk plays the episodes of c, appending their raw lines to
// c.Buf when raw is set and, when grading, keeping their graded rows.
func simulateChunk(sim *Simulator, c *Chunk, raw, grade bool) error {
	if grade {
		c.Eps = make([]ledger.Episode, 0, c.Hi-c.Lo)
	}
	for i := c.Lo; i < c.Hi; i++ {
		r, err := sim.Episode(i)
		if err != nil {
			return err
		}
		if raw {
			c.Buf = ledger.AppendRaw(c.Buf, r)
		}
		if grade {
			ep, err := sandbox.Grade(r)
			if err != nil {
				return fmt.Errorf("episode %d (%s): grade: %w", i, r.EpisodeID, err)
			}
			c.Eps = append(c.Eps, ep)
		}
	}
	return nil
}
