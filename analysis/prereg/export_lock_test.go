package prereg

import "github.com/limbo-toolkit/limbo/outfile"

// lockFileForTest holds the lock Lock takes on path, as a concurrent
// `prereg lock` would, until the returned function is called.
func lockFileForTest(path string) (func(), error) {
	l, err := outfile.TryLockFile(path)
	if err != nil {
		return nil, err
	}
	return func() { l.Unlock() }, nil
}
