package interop

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// CardOptions describe the Hugging Face dataset folder a card is written
// for.
type CardOptions struct {
	// Title heads the card ("LIMBO episode ledger" when empty).
	Title string
	// Source names the ledger the folder was exported from.
	Source string
	// ToolkitVersion is the version of the toolkit writing the folder.
	ToolkitVersion string
	// Episodes is the number of episodes.
	Episodes int
	// Levels holds, for each dictionary-encoded episode column, the values
	// it takes in the data (a categorical's levels), listed in the card.
	Levels map[string][]string
	// Extra are the user's extra columns (strings) after the schema's.
	Extra []string
	// Calls and Effects say whether the folder holds those tables.
	Calls, Effects bool
}

// Paths of the tables inside a dataset folder.
const (
	EpisodesFile = "data/episodes.parquet"
	CallsFile    = "data/episodes.calls.parquet"
	EffectsFile  = "data/episodes.effects.parquet"
)

// Categorical reports whether the episode column c is a categorical: a
// string column Parquet stores dictionary-encoded.
func Categorical(c ledger.Column) bool {
	return ledger.ParquetType("episodes", c) == "UTF8, dictionary"
}

// dtype is a column's Hugging Face feature type.
func dtype(k ledger.Kind) string {
	switch k {
	case ledger.KindInt:
		return "int64"
	case ledger.KindFloat:
		return "float64"
	case ledger.KindBool:
		return "bool"
	}
	return "string"
}

// WriteCard writes the README.md of a Hugging Face dataset folder: YAML
// front matter that `datasets.load_dataset(folder)` reads (a config per
// table, its data files, every column's feature type), then the schema of
// every column, generated from the ledger's column tables, with each
// categorical's levels.
//
// The categoricals are dictionary-encoded strings in the Parquet files,
// which pandas, polars, DuckDB and Spark read as categoricals; `datasets`
// reads them as strings (Value("string")). Its own categorical, ClassLabel,
// needs integers stored, which every other reader would then see as bare
// codes, so the card declares strings and lists the levels.
func WriteCard(w io.Writer, o CardOptions) error {
	if o.Title == "" {
		o.Title = "LIMBO episode ledger"
	}
	var b strings.Builder
	b.WriteString("---\nconfigs:\n")
	b.WriteString("- config_name: episodes\n  data_files: " + EpisodesFile + "\n  default: true\n")
	if o.Calls {
		b.WriteString("- config_name: calls\n  data_files: " + CallsFile + "\n")
	}
	if o.Effects {
		b.WriteString("- config_name: effects\n  data_files: " + EffectsFile + "\n")
	}
	b.WriteString("dataset_info:\n- config_name: episodes\n  features:\n")
	for _, c := range ledger.EpisodeColumns {
		b.WriteString("  - name: " + c.Name + "\n    dtype: " + dtype(c.Kind) + "\n")
	}
	for _, x := range o.Extra {
		b.WriteString("  - name: " + yamlString(x) + "\n    dtype: string\n")
	}
	for _, t := range []struct {
		name string
		on   bool
		cols []ledger.Column
	}{{"calls", o.Calls, ledger.CallColumns}, {"effects", o.Effects, ledger.EffectColumns}} {
		if !t.on {
			continue
		}
		b.WriteString("- config_name: " + t.name + "\n  features:\n")
		for _, c := range t.cols {
			b.WriteString("  - name: " + c.Name + "\n    dtype: " + dtype(c.Kind) + "\n")
		}
	}
	b.WriteString("---\n\n# " + o.Title + "\n\n")
	fmt.Fprintf(&b, "%d episodes of tool-using agents under injected faults, graded for duplicate side effects, "+
		"exported by limbo-analyze (toolkit %s, ledger schema %s) from `%s`. "+
		"The Parquet files keep the categoricals dictionary-encoded (pandas `category`, polars `Categorical`); "+
		"`datasets` reads them as strings. Load it with `datasets.load_dataset(FOLDER)` (the episodes; "+
		"`load_dataset(FOLDER, \"calls\")` for the calls) or `pandas.read_parquet(FOLDER + \"/%s\")`.\n\n",
		o.Episodes, o.ToolkitVersion, ledger.SchemaVersion, o.Source, EpisodesFile)
	tables := []struct {
		title, file string
		on          bool
		cols        []ledger.Column
	}{{"episodes", EpisodesFile, true, ledger.EpisodeColumns}, {"calls", CallsFile, o.Calls, ledger.CallColumns},
		{"effects", EffectsFile, o.Effects, ledger.EffectColumns}}
	for _, t := range tables {
		if !t.on {
			continue
		}
		fmt.Fprintf(&b, "## %s (`%s`)\n\n| column | type | meaning |\n|---|---|---|\n", t.title, t.file)
		for _, c := range t.cols {
			domain := c.Domain
			if levels, ok := o.Levels[c.Name]; ok && t.title == "episodes" {
				domain = "categorical: " + strings.Join(quoted(levels), ", ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Name, strings.ReplaceAll(domain, "|", `\|`), strings.ReplaceAll(c.Doc, "|", `\|`))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// yamlString quotes s for YAML (a JSON string is a YAML string).
func yamlString(s string) string { return strconv.Quote(s) }

// quoted returns the levels as inline code, the empty one as "(empty)".
func quoted(levels []string) []string {
	out := make([]string, len(levels))
	for i, l := range levels {
		out[i] = "`" + strings.ReplaceAll(l, "`", "'") + "`"
		if l == "" {
			out[i] = "(empty)"
		}
	}
	return out
}

// Levels returns the levels of the categorical columns of eps, sorted
// bytewise (the order of their class labels).
func Levels(eps []ledger.Episode) map[string][]string {
	out := map[string][]string{}
	for _, c := range ledger.EpisodeColumns {
		if !Categorical(c) {
			continue
		}
		seen := map[string]bool{}
		for i := range eps {
			v, _ := eps[i].Get(c.Name)
			s := v.String()
			if !seen[s] {
				seen[s] = true
				out[c.Name] = append(out[c.Name], s)
			}
		}
		slices.Sort(out[c.Name])
	}
	return out
}
