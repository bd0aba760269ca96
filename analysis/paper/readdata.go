package paper

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// ReadData is Read for the paper's tables, hypotheses, figures and report:
// a ledger without a single episode is an error naming it, since every
// table of it would be empty.
func ReadData(path string, opt ledger.ReadOptions) (*table.Data, error) {
	d, err := table.Read(path, opt)
	if err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("%s: no episodes", path)
	}
	return d, nil
}
