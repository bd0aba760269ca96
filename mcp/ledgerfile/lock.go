package ledgerfile

import "github.com/limbo-toolkit/limbo/outfile"

// ErrLocked is wrapped by LockFile's error when another process holds the
// lock.
var ErrLocked = outfile.ErrLocked

// LockPath is the lock file of a ledger.
func LockPath(ledgerPath string) string { return outfile.LockPath(ledgerPath) }

// LockFile takes the exclusive lock of a served or driven ledger without
// waiting: two drives (or serves) on one ledger would otherwise run every
// episode twice. The error of a second run names the holder.
func LockFile(target string) (*outfile.Lock, error) { return outfile.TryLock(target, "") }
