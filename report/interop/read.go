package interop

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Read reads the graded episodes of the ledger at path with their calls
// and final reports: a raw JSONL ledger's nested ones, or a Parquet
// export's calls table beside it (X.calls.parquet); a ledger of graded rows
// only gives episodes without calls.
func Read(path string, opt ledger.ReadOptions) ([]Episode, error) {
	var eps []Episode
	err := ledger.ReadGraded(path, opt, func(e *ledger.Episode, raw *ledger.RawEpisode) error {
		ep := Episode{Episode: *e}
		if raw != nil {
			ep.Calls = append([]ledger.Call(nil), raw.Calls...)
			ep.Report = raw.FinalReport
		}
		eps = append(eps, ep)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if side, ok := strings.CutSuffix(path, ".parquet"); ok {
		side += ".calls.parquet"
		if _, err := os.Stat(side); err == nil {
			at := make(map[string]int, len(eps))
			for i := range eps {
				at[eps[i].EpisodeID] = i
			}
			err := ledger.ReadCalls(side, opt, func(c *ledger.Call) error {
				if i, ok := at[c.EpisodeID]; ok {
					eps[i].Calls = append(eps[i].Calls, *c)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	sortCalls(eps)
	return eps, nil
}
