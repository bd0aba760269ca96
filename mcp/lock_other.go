//go:build !unix

package mcp

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("lock held")

// flock is a no-op where flock(2) is missing: the lock file still names
// the last holder, but two runs are not kept apart.
func flock(*os.File) error { return nil }
