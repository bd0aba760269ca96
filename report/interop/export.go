package interop

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

// ExportInspectLog writes the ledger at in as an Inspect log at out,
// atomically (python/README.md: Inspect logs and Hugging Face datasets).
func ExportInspectLog(in, out string, opt ledger.ReadOptions, toolkitVersion string) error {
	eps, err := Read(in, opt)
	if err != nil {
		return err
	}
	f, err := outfile.Create(out)
	if err != nil {
		return err
	}
	if err := WriteInspectLog(f, eps, InspectOptions{Source: in, ToolkitVersion: toolkitVersion}); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", out, err)
	}
	return f.Close()
}

// ExportHFDataset writes the ledger at in as a Hugging Face dataset
// folder out: the episodes (and the calls and effects of a raw ledger) as
// ledger.Export writes Parquet, and the dataset card. The folder is built
// in a staging directory and put in place whole.
func ExportHFDataset(in, out string, o ledger.ExportOptions) error {
	d, err := outfile.CreateDir(out)
	if err != nil {
		return err
	}
	fail := func(err error) error { d.Abort(); return err }
	eps := filepath.Join(d.Path(), filepath.FromSlash(EpisodesFile))
	st, err := ledger.Export(in, eps, o)
	if err != nil {
		return fail(err)
	}
	var rows []ledger.Episode
	extra := map[string]bool{}
	if err := ledger.ReadEpisodes(eps, ledger.ReadOptions{}, func(ep *ledger.Episode) error {
		for k := range ep.Extra {
			extra[k] = true
		}
		rows = append(rows, *ep)
		return nil
	}); err != nil {
		return fail(err)
	}
	card := CardOptions{Source: in, ToolkitVersion: o.ToolkitVersion, Episodes: len(rows), Levels: Levels(rows),
		Extra: slices.Sorted(maps.Keys(extra)), Calls: st.Nested, Effects: st.Nested}
	f, err := os.Create(filepath.Join(d.Path(), "README.md"))
	if err != nil {
		return fail(err)
	}
	if err := WriteCard(f, card); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return d.Commit()
}
