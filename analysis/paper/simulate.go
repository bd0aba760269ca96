package paper

import (
	"runtime"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Simulate runs the paper's design in-process with seed on every core
// and returns its graded episodes in design order (the one-command
// report without a ledger).
func Simulate(seed uint64) (*table.Data, error) {
	d := &table.Data{}
	err := design.Episodes("paper", seed, runtime.GOMAXPROCS(0), func(ep *ledger.Episode) error {
		d.Append(ep) // a copy: design.Episodes reuses ep
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// RunSeed is the run seed of the ledger at in: the one its sidecar
// records, else the one all its episodes share ("" if none).
func RunSeed(in string, d *table.Data) string {
	if s := design.SidecarSeed(in); s != "" {
		return s
	}
	return d.RunSeed()
}

// NativeTools is Table 11's source: the sandbox's native tool catalogue.
func NativeTools() []Tool {
	var out []Tool
	for _, s := range sandbox.Catalogue(ledger.ContractNative) {
		out = append(out, Tool{Name: s.Name, Write: s.Write, Description: s.Description})
	}
	return out
}
