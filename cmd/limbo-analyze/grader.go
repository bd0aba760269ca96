package main

import (
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// grader returns the grader that raw JSONL ledgers are graded with on read:
// the paper's (package sandbox). Every command that reads ledgers gets it
// from here, so there is one place to change it.
func grader() ledger.Grader {
	return sandbox.Grade
}
