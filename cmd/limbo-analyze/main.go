// Command limbo-analyze regenerates or ingests LIMBO episode ledgers and turns
// them into the paper's tables, figures, hypothesis verdicts and Parquet.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
