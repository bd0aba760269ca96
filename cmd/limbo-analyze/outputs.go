package main

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/outfile"
)

// checkOutputs refuses, before any work is done, an output that is one of
// the inputs however it is spelled (the same file by device and inode,
// through symlinks and hard links): exit status 2, nothing written.
func checkOutputs(cmd string, outputs, inputs []string) error {
	for _, o := range outputs {
		if o == "" || o == "-" {
			continue
		}
		if err := outfile.CheckNotInput(o, inputs...); err != nil {
			return usageError{fmt.Errorf("%s: %w", cmd, err)}
		}
	}
	return nil
}
