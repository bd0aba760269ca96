package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limbo-toolkit/limbo/guard"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Schema is the table a store keeps its records in (docs/guard.md, "The
// SQLite file"): one row per key; times are Unix nanoseconds, NULL for
// none; result is the stored answer as the caller gave it (JSON for MCP);
// an action ledger's attempts in flight or lost are the JSON array pending
// ([{"attempt":3,"sent_ns":…,"lost":true}], oldest first), counted in
// prepared and unresolved.
const Schema = `CREATE TABLE guard_keys (
  key         TEXT PRIMARY KEY,
  tool        TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('in_flight', 'succeeded', 'failed', 'unknown', 'issued', 'consumed')),
  attempt     INTEGER NOT NULL,
  began_ns    INTEGER,
  updated_ns  INTEGER,
  expires_ns  INTEGER,
  result      TEXT,
  issued      INTEGER NOT NULL DEFAULT 0,
  committed   INTEGER NOT NULL DEFAULT 0,
  prepared    INTEGER NOT NULL DEFAULT 0,
  unresolved  INTEGER NOT NULL DEFAULT 0,
  pending     TEXT
) WITHOUT ROWID;
CREATE INDEX guard_keys_expiry ON guard_keys (expires_ns) WHERE expires_ns IS NOT NULL;`

// schemaVersion is the file's PRAGMA user_version once the table exists.
const schemaVersion = 1

// maxBatch bounds the transitions committed in one transaction.
const maxBatch = 512

// Store is a guard.Store in a SQLite file. It is safe for concurrent use.
type Store struct {
	path          string
	db            *sql.DB
	w             *sql.Conn // the one writer
	sel, put, del *sql.Stmt
	begin, end    *sql.Stmt // BEGIN IMMEDIATE and COMMIT, prepared once

	mu     sync.RWMutex // closed and sends on ops
	closed bool
	ops    chan *op
	done   chan struct{} // closed when the writer has stopped
	held   int           // rows, as the writer counts them

	commits, transitions atomic.Int64
}

// Stats counts a store's work since it was opened.
type Stats struct {
	Commits     int64 // transactions committed (one fsync of the WAL each)
	Transitions int64 // updates and purges applied in them
}

// Stats returns the store's counts: Transitions/Commits is the mean batch
// of the group commit.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.commits.Load(), Transitions: s.transitions.Load()}
}

type op struct {
	ctx   context.Context
	key   string
	fn    guard.UpdateFunc
	purge time.Time // a Purge, when fn is nil
	n     int       // rows purged
	err   chan error
}

// Open opens (creating it if need be) the store in the SQLite file at
// path. Records in flight there, left by a process that died, become
// unknown outcomes.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	s := &Store{path: path, db: db, ops: make(chan *op, maxBatch), done: make(chan struct{})}
	if err := s.open(ctx); err != nil {
		if s.w != nil {
			s.w.Close()
		}
		db.Close()
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	go s.run()
	return s, nil
}

// dsn is the driver's name for the file: a file: URI (so that ? and # in a
// path are escaped, not read as its query) with the pragmas every
// connection needs: WAL, full synchronous commits, and a busy wait
// instead of an error when another connection holds the lock.
func dsn(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	return "file:" + esc + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
}

func (s *Store) open(ctx context.Context) error {
	w, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	s.w = w
	var mode string
	if err := w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	var sync int
	if err := w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return err
	}
	if sync != 2 {
		return fmt.Errorf("synchronous is %d, not 2 (FULL)", sync)
	}
	if _, err := w.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := s.migrate(ctx); err != nil {
		w.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	if _, err := w.ExecContext(ctx, "COMMIT"); err != nil {
		w.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	if s.sel, err = w.PrepareContext(ctx, selectSQL); err != nil {
		return err
	}
	if s.put, err = w.PrepareContext(ctx, putSQL); err != nil {
		return err
	}
	if s.del, err = w.PrepareContext(ctx, deleteSQL); err != nil {
		return err
	}
	if s.begin, err = w.PrepareContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if s.end, err = w.PrepareContext(ctx, "COMMIT"); err != nil {
		return err
	}
	return nil
}

// migrate creates the table in a new file, checks an existing one's
// version, and turns attempts left in flight into unknown outcomes; it
// runs inside Open's transaction.
func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	switch version {
	case 0:
		var tables int
		if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
			return err
		}
		if tables != 0 {
			return errors.New("not a guard store (it holds other tables)")
		}
		if _, err := s.w.ExecContext(ctx, Schema); err != nil {
			return err
		}
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
			return err
		}
	case schemaVersion:
	default:
		return fmt.Errorf("schema version %d (this program reads %d)", version, schemaVersion)
	}
	rows, err := s.w.QueryContext(ctx, `SELECT key FROM guard_keys WHERE state = 'in_flight' OR prepared > 0`)
	if err != nil {
		return err
	}
	var stuck []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return err
		}
		stuck = append(stuck, k)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, k := range stuck {
		r, _, err := scanRecord(s.w.QueryRowContext(ctx, selectSQL, k), k)
		if err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		r, _ = guard.Restarted(r)
		if _, err := s.w.ExecContext(ctx, putSQL, recordArgs(r)...); err != nil {
			return err
		}
	}
	return s.w.QueryRowContext(ctx, "SELECT count(*) FROM guard_keys").Scan(&s.held)
}

const (
	columns   = `tool, fingerprint, state, attempt, began_ns, updated_ns, expires_ns, result, issued, committed, prepared, unresolved, pending`
	selectSQL = `SELECT ` + columns + ` FROM guard_keys WHERE key = ?`
	putSQL    = `INSERT OR REPLACE INTO guard_keys (key, ` + columns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	deleteSQL = `DELETE FROM guard_keys WHERE key = ?`
	expirySQL = `SELECT key, ` + columns + ` FROM guard_keys WHERE expires_ns <= ?`
)

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanRecord reads the record of key from a row of its columns.
func scanRecord(row scanner, key string) (guard.Record, bool, error) {
	r, err := scanColumns(row, key)
	if err == sql.ErrNoRows {
		return guard.Record{}, false, nil
	}
	return r, err == nil, err
}

// scanColumns reads a record's columns; with key "" the row starts with
// the key.
func scanColumns(row scanner, key string) (guard.Record, error) {
	var (
		r                       guard.Record
		state                   string
		began, updated, expires sql.NullInt64
		result, pending         sql.NullString
		attempt                 int64
		prepared, unresolved    int
	)
	dest := []any{&r.Tool, &r.Fingerprint, &state, &attempt, &began, &updated, &expires, &result, &r.Issued, &r.Committed, &prepared, &unresolved, &pending}
	r.Key = key
	if key == "" {
		dest = append([]any{&r.Key}, dest...)
	}
	if err := row.Scan(dest...); err != nil {
		return guard.Record{}, err
	}
	if err := r.State.UnmarshalText([]byte(state)); err != nil {
		return guard.Record{}, err
	}
	r.Attempt = uint64(attempt)
	r.Began, r.Updated, r.Expires = fromNanos(began), fromNanos(updated), fromNanos(expires)
	if result.Valid {
		r.Result = []byte(result.String)
	}
	if pending.Valid {
		var ps []pendingJSON
		if err := json.Unmarshal([]byte(pending.String), &ps); err != nil {
			return guard.Record{}, fmt.Errorf("key %q: pending: %w", r.Key, err)
		}
		for _, p := range ps {
			r.Pending = append(r.Pending, guard.Attempt{N: p.Attempt, Sent: time.Unix(0, p.SentNs).UTC(), Lost: p.Lost})
		}
	}
	return r, nil
}

// pendingJSON is one element of the pending column.
type pendingJSON struct {
	Attempt uint64 `json:"attempt"`
	SentNs  int64  `json:"sent_ns"`
	Lost    bool   `json:"lost"`
}

// recordArgs are putSQL's arguments for r.
func recordArgs(r guard.Record) []any {
	var result any
	if r.Result != nil {
		result = string(r.Result)
	}
	var pending any
	if len(r.Pending) > 0 {
		ps := make([]pendingJSON, len(r.Pending))
		for i, a := range r.Pending {
			ps[i] = pendingJSON{Attempt: a.N, SentNs: a.Sent.UnixNano(), Lost: a.Lost}
		}
		b, _ := json.Marshal(ps) // cannot fail: integers and booleans
		pending = string(b)
	}
	return []any{r.Key, r.Tool, r.Fingerprint, r.State.String(), int64(r.Attempt),
		toNanos(r.Began), toNanos(r.Updated), toNanos(r.Expires), result,
		r.Issued, r.Committed, r.Prepared(), r.Unresolved(), pending}
}

// toNanos stores a time as Unix nanoseconds, the zero time as NULL (so that
// a virtual clock's time 0, the Unix epoch, is not mistaken for none).
func toNanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// run is the writer: it takes every pending operation, applies them in
// one transaction and commits them with one fsync.
func (s *Store) run() {
	defer close(s.done)
	batch := make([]*op, 0, maxBatch)
	for o := range s.ops {
		batch = append(batch[:0], o)
	fill:
		for len(batch) < maxBatch {
			select {
			case o, ok := <-s.ops:
				if !ok {
					break fill
				}
				batch = append(batch, o)
			default:
				break fill
			}
		}
		s.commit(batch)
	}
}

// commit applies a batch in one transaction. Each operation is answered
// after the commit (so a decision that read another's write is answered
// only once that write is durable); when the transaction fails, all are
// answered with its error and none took effect.
func (s *Store) commit(batch []*op) {
	errs := make([]error, len(batch))
	held := s.held
	err := s.apply(batch, errs, &held)
	if err == nil {
		_, err = s.end.ExecContext(context.Background())
	}
	if err != nil {
		// Undo whatever is left of the transaction (nothing, if the
		// failed statement already rolled it back).
		s.w.ExecContext(context.Background(), "ROLLBACK")
		for _, o := range batch {
			o.err <- err
		}
		return
	}
	s.held = held
	s.commits.Add(1)
	s.transitions.Add(int64(len(batch)))
	for i, o := range batch {
		o.err <- errs[i]
	}
}

func (s *Store) apply(batch []*op, errs []error, held *int) error {
	bg := context.Background()
	if _, err := s.begin.ExecContext(bg); err != nil {
		return err
	}
	for i, o := range batch {
		if err := o.ctx.Err(); err != nil {
			errs[i] = err // never applied
			continue
		}
		if o.fn == nil {
			n, err := s.purge(bg, o.purge)
			if err != nil {
				return err
			}
			o.n = n
			*held -= n
			continue
		}
		cur, found, err := scanRecord(s.sel.QueryRowContext(bg, o.key), o.key)
		if err != nil {
			return err
		}
		next, change := o.fn(cur, found, *held)
		switch change {
		case guard.Put:
			next.Key = o.key
			if _, err := s.put.ExecContext(bg, recordArgs(next)...); err != nil {
				return err
			}
			if !found {
				*held++
			}
		case guard.Delete:
			if found {
				if _, err := s.del.ExecContext(bg, o.key); err != nil {
					return err
				}
				*held--
			}
		}
	}
	return nil
}

// purge deletes the records expired at now, judged by guard.Record.Expired.
func (s *Store) purge(ctx context.Context, now time.Time) (int, error) {
	rows, err := s.w.QueryContext(ctx, expirySQL, now.UnixNano())
	if err != nil {
		return 0, err
	}
	var gone []string
	for rows.Next() {
		r, err := scanColumns(rows, "")
		if err != nil {
			rows.Close()
			return 0, err
		}
		if r.Expired(now) {
			gone = append(gone, r.Key)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	for _, k := range gone {
		if _, err := s.del.ExecContext(ctx, k); err != nil {
			return 0, err
		}
	}
	return len(gone), nil
}

// submit queues an operation for the writer and waits for its answer.
func (s *Store) submit(o *op) error {
	if err := o.ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return guard.ErrClosed
	}
	o.err = make(chan error, 1)
	s.ops <- o
	s.mu.RUnlock()
	// Once queued, an operation may be applied: wait for the commit even
	// if ctx ends, so that the answer says what happened.
	return <-o.err
}

// Update implements guard.Store.
func (s *Store) Update(ctx context.Context, key string, fn guard.UpdateFunc) error {
	return s.submit(&op{ctx: ctx, key: key, fn: fn})
}

// Purge implements guard.Store.
func (s *Store) Purge(ctx context.Context, now time.Time) (int, error) {
	o := &op{ctx: ctx, purge: now}
	if err := s.submit(o); err != nil {
		return 0, err
	}
	return o.n, nil
}

// Get implements guard.Store. It reads the last committed state.
func (s *Store) Get(ctx context.Context, key string) (guard.Record, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return guard.Record{}, false, guard.ErrClosed
	}
	return scanRecord(s.db.QueryRowContext(ctx, selectSQL, key), key)
}

// Path returns the file's path as given to Open.
func (s *Store) Path() string { return s.path }

// Close stops the writer after the queued operations and closes the
// file, checkpointing the WAL into it.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return guard.ErrClosed
	}
	s.closed = true
	close(s.ops)
	s.mu.Unlock()
	<-s.done
	var errs []error
	for _, st := range []*sql.Stmt{s.sel, s.put, s.del, s.begin, s.end} {
		errs = append(errs, st.Close())
	}
	_, err := s.w.ExecContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)")
	errs = append(errs, err, s.w.Close(), s.db.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlitestore: %s: %w", s.path, err)
	}
	return nil
}
