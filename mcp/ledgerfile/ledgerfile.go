package ledgerfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/outfile"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Ledger is an append-only JSONL episode ledger that survives crashes:
// every line is written with one write(2) to an O_APPEND file and synced
// before the episode counts as recorded, so a crash leaves at most a torn
// last line, which Open removes.
type Ledger struct {
	path string
	f    *os.File
	lock *outfile.Lock
	// created: Open made the file, so Close removes it again if no
	// episode was written (a run that recorded nothing leaves nothing).
	created bool

	mu      sync.Mutex
	done    map[string]bool
	n       int
	written uint64 // lines written (under mu)

	// Group commit: syncMu serializes fsyncs; synced is how many written
	// lines the last completed fsync covers (under syncMu).
	syncMu sync.Mutex
	synced uint64
	syncs  int // fsyncs done by appends (for tests)
}

// ErrRecorded is returned by Append for an episode the ledger already has.
var ErrRecorded = errors.New("episode already in the ledger")

// maxLedgerLine bounds one ledger line when reading (a raw episode with a
// few hundred calls is well under this).
const maxLedgerLine = 64 << 20

// Open opens (creating if needed) the ledger at path, reads the ids
// of the episodes it holds and truncates a torn last line (one without its
// newline, which only a crash mid-write leaves). warn, if not nil, is told
// about a truncation. Lines must be JSON objects with an episode_id; any
// other line is an error naming the file and line. The ledger is locked
// (LockFile) until Close: a second Open of the same file fails with
// an error naming the holder.
func Open(path string, warn func(string)) (l *Ledger, err error) {
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.IsDir() {
		return nil, ledger.Problem{File: path, Msg: "is a directory, not a ledger file"}
	}
	lock, err := LockFile(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Unlock()
		}
	}()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // the path is already named
			return nil, ledger.Problem{File: path, Msg: pe.Op + ": " + pe.Err.Error()}
		}
		return nil, ledger.Problem{File: path, Msg: err.Error()}
	}
	l = &Ledger{path: path, f: f, lock: lock, created: errors.Is(statErr, os.ErrNotExist), done: map[string]bool{}}
	if l.created {
		// The run's start, for readers who ask whether a preregistration
		// was locked before the data existed (docs/prereg.md).
		if err := WriteCreated(path, time.Now()); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
	}
	good, err := l.scan()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, ledger.Problem{File: path, Msg: err.Error()}
	}
	if st.Size() > good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, ledger.Problem{File: path, Msg: "truncating a torn last line: " + err.Error()}
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, ledger.Problem{File: path, Msg: err.Error()}
		}
		if warn != nil {
			warn(fmt.Sprintf("%s: removed a torn last line (%d bytes) left by an interrupted write", path, st.Size()-good))
		}
	}
	return l, nil
}

// scan reads the ledger from the start and returns the length of its
// complete lines.
func (l *Ledger) scan() (int64, error) {
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return 0, ledger.Problem{File: l.path, Msg: err.Error()}
	}
	r := bufio.NewReaderSize(l.f, 1<<16)
	var good int64
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(r)
		if err == io.EOF {
			return good, nil
		}
		if errors.Is(err, errTorn) {
			return good, nil
		}
		if err != nil {
			return 0, ledger.Problem{File: l.path, Line: lineNo, Msg: err.Error()}
		}
		n := int64(len(line)) + 1
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			good += n
			continue
		}
		var head struct {
			EpisodeID *string `json:"episode_id"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return 0, ledger.Problem{File: l.path, Line: lineNo, Msg: "not a JSON episode line: " + err.Error()}
		}
		if head.EpisodeID == nil || *head.EpisodeID == "" {
			return 0, ledger.Problem{File: l.path, Line: lineNo, Field: "episode_id", Msg: "missing"}
		}
		l.done[*head.EpisodeID] = true
		l.n++
		good += n
	}
}

var errTorn = errors.New("torn line")

// readLine returns one line without its newline; a last line without a
// newline is errTorn.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLedgerLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLedgerLine)
		}
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(buf) == 0 {
				return nil, io.EOF
			}
			return nil, errTorn
		default:
			return nil, err
		}
	}
}

// Path is the ledger's file name.
func (l *Ledger) Path() string { return l.path }

// Has reports whether the episode is recorded.
func (l *Ledger) Has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done[id]
}

// Len is the number of recorded episodes.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Lines reads the ledger's complete lines from the start and hands each
// non-blank one to fn with its line number; a torn last line (removed at
// Open) ends the reading. An error of fn stops it and is returned.
func (l *Ledger) Lines(fn func(lineNo int, line []byte) error) error {
	f, err := os.Open(l.path)
	if err != nil {
		return ledger.Problem{File: l.path, Msg: err.Error()}
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(r)
		if err == io.EOF || errors.Is(err, errTorn) {
			return nil
		}
		if err != nil {
			return ledger.Problem{File: l.path, Line: lineNo, Msg: err.Error()}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(lineNo, line); err != nil {
			return err
		}
	}
}

// AppendLine records one episode given as its JSON line (without the
// newline): one write of the whole line and its newline, then an fsync
// that covers it (shared with concurrent appends; see syncThrough).
func (l *Ledger) AppendLine(id string, line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return fmt.Errorf("%s: episode %s: ledger line contains a newline", l.path, id)
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	l.mu.Lock()
	if l.done[id] {
		l.mu.Unlock()
		return ErrRecorded
	}
	n, err := l.f.Write(buf)
	if err != nil || n != len(buf) {
		l.mu.Unlock()
		if err == nil {
			err = io.ErrShortWrite
		}
		return ledger.Problem{File: l.path, Msg: "appending episode " + id + ": " + err.Error()}
	}
	l.done[id] = true
	l.n++
	l.written++
	seq := l.written
	l.mu.Unlock()
	if err := l.syncThrough(seq); err != nil {
		return ledger.Problem{File: l.path, Msg: "syncing episode " + id + ": " + err.Error()}
	}
	return nil
}

// syncThrough returns once an fsync that began after line seq was written
// has completed. Concurrent appends share fsyncs (group commit): whoever
// holds syncMu syncs every line written so far, and the appends queued
// behind it find their lines covered and return without a syscall of
// their own. So a line is still durable before AppendLine returns (and so
// before the episode's finish is answered), at one fsync per group
// instead of one per episode.
func (l *Ledger) syncThrough(seq uint64) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if l.synced >= seq {
		return nil
	}
	l.mu.Lock()
	upto := l.written // every line counted here is already written
	l.mu.Unlock()
	if err := l.f.Sync(); err != nil {
		return err
	}
	l.synced = upto
	l.syncs++
	return nil
}

// Close closes the file and releases its lock. A ledger file that
// Open created and that received no episode is removed: a run that
// recorded nothing (a harness that never reached the server) must not
// leave an empty ledger that looks like a finished run with no episodes.
func (l *Ledger) Close() error {
	l.mu.Lock()
	empty := l.created && l.n == 0
	l.mu.Unlock()
	err := l.f.Close()
	if empty && err == nil {
		if fi, serr := os.Stat(l.path); serr == nil && fi.Size() == 0 {
			err = os.Remove(l.path)
			if rerr := os.Remove(CreatedPath(l.path)); err == nil && !errors.Is(rerr, os.ErrNotExist) {
				err = rerr
			}
		}
	}
	if uerr := l.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// Created is the sidecar LEDGER.created.json that drive, serve and proxy write
// beside a ledger they create: when the run that created it started.
type Created struct {
	CreatedUTC string `json:"created_utc"` // RFC 3339, UTC
}

// CreatedPath is LEDGER.created.json for LEDGER.jsonl (the extension
// replaced).
func CreatedPath(ledgerPath string) string {
	return strings.TrimSuffix(ledgerPath, filepath.Ext(ledgerPath)) + ".created.json"
}

// WriteCreated writes the creation sidecar of the ledger at ledgerPath,
// atomically (outfile).
func WriteCreated(ledgerPath string, t time.Time) error {
	b, err := json.MarshalIndent(Created{CreatedUTC: t.UTC().Format(time.RFC3339)}, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteFile(CreatedPath(ledgerPath), append(b, '\n'))
}

// ReadCreated returns the creation time recorded beside the ledger at
// ledgerPath and the sidecar's path; ok is false without a sidecar. A
// malformed sidecar is an error naming the file and the field.
func ReadCreated(ledgerPath string) (t time.Time, path string, ok bool, err error) {
	path = CreatedPath(ledgerPath)
	b, err := readlimit.ReadFile(path, "a ledger's creation sidecar", readlimit.Lock)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, path, false, nil
	}
	if err != nil {
		return time.Time{}, path, false, err
	}
	var c Created
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return time.Time{}, path, false, fmt.Errorf("%s: not a creation sidecar: %w", path, err)
	}
	if t, err = time.Parse(time.RFC3339, c.CreatedUTC); err != nil {
		return time.Time{}, path, false, fmt.Errorf("%s: field created_utc: %q is not an RFC 3339 time", path, c.CreatedUTC)
	}
	return t, path, true, nil
}
