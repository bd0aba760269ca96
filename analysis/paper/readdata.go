package paper

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/ledger"
)

// ReadData is Read for the paper's tables, hypotheses, figures and report:
// a ledger without a single episode is an error naming it, since every
// table of it would be empty.
func ReadData(path string, opt ledger.ReadOptions) (*analysis.Data, error) {
	d, err := analysis.Read(path, opt)
	if err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("%s: no episodes", path)
	}
	return d, nil
}
