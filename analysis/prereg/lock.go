package prereg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/outfile"
)

// LockFile is the content of FILE.lock: what was registered, when, with
// which toolkit. It is tamper evidence, not security — a reader who trusts
// the lock's time must trust where the lock was published.
type LockFile struct {
	File           string `json:"file"`
	SHA256         string `json:"sha256"`
	LockedAt       string `json:"locked_at"` // UTC, RFC 3339
	ToolkitVersion string `json:"toolkit_version"`
}

// LockPath is the lock file of a preregistration.
func LockPath(path string) string { return path + ".lock" }

// Lock writes path.lock for the file at path, which must parse. now is
// the locking time (its UTC value is written). An existing lock is not
// overwritten. The file is held under an exclusive lock (outfile.TryLockFile,
// on its identity) from its reading to the writing of path.lock, so that
// of two concurrent Locks of one file, through any of its names, one
// writes the lock and the other refuses.
func Lock(path string, now time.Time, version string) (_ *LockFile, err error) {
	held, err := outfile.TryLockFile(path)
	if errors.Is(err, outfile.ErrLocked) {
		return nil, fmt.Errorf("%s is being locked by another process (prereg lock); a preregistration is locked once", path)
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if uerr := held.Unlock(); err == nil && uerr != nil {
			err = uerr
		}
	}()
	data, err := readlimit.ReadFile(path, "a preregistration", readlimit.Prereg)
	if err != nil {
		return nil, err
	}
	if _, err := Parse(path, data); err != nil {
		return nil, err
	}
	lp := LockPath(path)
	if _, err := os.Stat(lp); err == nil {
		return nil, fmt.Errorf("%s already exists: a preregistration is locked once (remove the lock only if the registration was never published)", lp)
	}
	sum := sha256.Sum256(data)
	l := &LockFile{File: filepath.Base(path), SHA256: hex.EncodeToString(sum[:]), LockedAt: now.UTC().Format(time.RFC3339), ToolkitVersion: version}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	if err := outfile.WriteFile(lp, b); err != nil {
		return nil, err
	}
	return l, nil
}

// LockStatus is what a lock says about a preregistration and a ledger.
type LockStatus struct {
	Present  bool   `json:"present"`
	Matches  bool   `json:"matches"`   // the lock's SHA-256 is the file's
	LockedAt string `json:"locked_at"` // "" without a lock
	// PredatesLedger is "yes", "no", "unknown" (nothing records when the
	// ledger was created) or "not applicable: simulated (seed N)".
	PredatesLedger string `json:"predates_ledger"`
	// LedgerCreated is the ledger's creation time (RFC 3339, UTC) and
	// LedgerCreatedFrom where it was read; both "" when unknown.
	LedgerCreated     string `json:"ledger_created,omitempty"`
	LedgerCreatedFrom string `json:"ledger_created_from,omitempty"`
	Note              string `json:"note,omitempty"`
}

// Origin is what is known of when a ledger came to be.
type Origin struct {
	// Created is when the ledger was created (zero: unknown), and From
	// says where that was read: a flag, a sidecar, Parquet metadata.
	Created time.Time
	From    string
	// SimulatedSeed is the run seed of a simulated ledger, "" otherwise.
	// A simulated ledger is reproduced byte for byte from its seed at any
	// time, so "was the lock earlier?" does not apply to it.
	SimulatedSeed string
}

// CheckLock reads path.lock and compares it with the file's SHA-256 and,
// when known, the ledger's creation time (zero if it records none).
func CheckLock(path, sha string, ledgerCreated time.Time) (*LockStatus, error) {
	return CheckLockOrigin(path, sha, Origin{Created: ledgerCreated})
}

// CheckLockOrigin reads path.lock and compares it with the file's SHA-256
// and with what o says of the ledger's creation: a known creation time
// decides whether the lock predates the ledger; without one, a simulated
// ledger is "not applicable" and any other "unknown".
func CheckLockOrigin(path, sha string, o Origin) (*LockStatus, error) {
	ledgerCreated := o.Created
	st := &LockStatus{PredatesLedger: "unknown"}
	b, err := readlimit.ReadFile(LockPath(path), "a preregistration's lock", readlimit.Lock)
	if errors.Is(err, fs.ErrNotExist) {
		st.Note = "no lock: the file was not locked with `prereg lock`"
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	var l LockFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: not a lock file: %w", LockPath(path), err)
	}
	t, err := time.Parse(time.RFC3339, l.LockedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: locked_at %q: %w", LockPath(path), l.LockedAt, err)
	}
	st.Present, st.LockedAt = true, l.LockedAt
	st.Matches = l.SHA256 == sha
	if !st.Matches {
		st.Note = "the file changed after it was locked (SHA-256 differs)"
	}
	switch {
	case !ledgerCreated.IsZero():
		st.LedgerCreated, st.LedgerCreatedFrom = ledgerCreated.UTC().Format(time.RFC3339), o.From
		st.PredatesLedger = "no"
		if t.Before(ledgerCreated) {
			st.PredatesLedger = "yes"
		}
	case o.SimulatedSeed != "":
		st.PredatesLedger = "not applicable: simulated (seed " + o.SimulatedSeed + ")"
	case st.Note == "":
		st.Note = "nothing records when the ledger was created: no LEDGER.created.json beside it, no Parquet created_utc, and no creation time given"
	}
	return st, nil
}

// Provenance identifies what a verdict was computed from.
type Provenance struct {
	Prereg         string      `json:"prereg"`
	PreregSHA256   string      `json:"prereg_sha256"`
	Ledger         string      `json:"ledger"`
	LedgerSHA256   string      `json:"ledger_sha256,omitempty"` // "" for large files
	LedgerBytes    int64       `json:"ledger_bytes"`
	ToolkitVersion string      `json:"toolkit_version"`
	Seed           string      `json:"seed,omitempty"` // the run seed of a simulated ledger (its LEDGER.meta.json)
	Lock           *LockStatus `json:"lock"`
}

// HashLimit is the largest ledger whose SHA-256 is computed; larger ones
// are identified by path and size, since hashing them would dominate the
// run.
const HashLimit = 256 << 20

// LedgerIdentity returns the SHA-256 (files up to HashLimit) and size of a
// ledger file; a directory is identified by the total size of its files.
func LedgerIdentity(path string) (sha string, size int64, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	if fi.IsDir() {
		err = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			i, err := d.Info()
			size += i.Size()
			return err
		})
		return "", size, err
	}
	if fi.Size() > HashLimit {
		return "", fi.Size(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), fi.Size(), nil
}
