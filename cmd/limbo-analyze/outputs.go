package main

import (
	"fmt"
	"path/filepath"

	"github.com/limbo-toolkit/limbo/internal/outfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// ledgerFiles returns the files a ledger path stands for: the path and, for
// a Parquet episode table, its calls and effects siblings.
func ledgerFiles(path string) []string {
	if formatByExt(path) != "parquet" {
		return []string{path}
	}
	c, e := ledger.SiblingPaths(path)
	return []string{path, c, e}
}

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

// checkOutputsDistinct refuses two outputs of one command that are the same
// file (simulate --out x.jsonl --episodes x.jsonl): one would silently
// replace the other.
func checkOutputsDistinct(cmd string, flags map[string]string) error {
	names := make([]string, 0, len(flags))
	for k := range flags {
		names = append(names, k)
	}
	for i, a := range names {
		for _, b := range names[i+1:] {
			pa, pb := flags[a], flags[b]
			if pa == "" || pb == "" || pa == "-" || pb == "-" {
				continue
			}
			if filepath.Clean(pa) == filepath.Clean(pb) || outfile.SameFile(pa, pb) {
				if a > b {
					a, b = b, a
				}
				return usagef("%s: %s and %s name the same file %s; one would replace the other", cmd, a, b, pa)
			}
		}
	}
	return nil
}
