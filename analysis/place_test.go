package analysis

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// firstLine returns the 1-based line of the CLI ledger's first data row
// whose text contains sub, and its 0-based index among the data rows.
func firstLine(t *testing.T, sub string) (line, row int) {
	t.Helper()
	b, err := os.ReadFile(cliLedger)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n")[1:] {
		if strings.Contains(l, sub) {
			return i + 2, i
		}
	}
	t.Fatalf("no row of %s contains %q", cliLedger, sub)
	return 0, 0
}

// TestRowErrorsNamePlace checks that a value an analysis rejects after the
// row was read (an outcome that is not binary, a weight that is not a
// number, a --where that cannot be evaluated) is named where a user finds
// it: the file line of a CSV or JSONL ledger (a CSV's header is line 1),
// the 0-based row index of a Parquet one, the file of several; and, for
// episodes held in memory, the episode. It used to say "row N", N counting
// the rows kept by --where.
func TestRowErrorsNamePlace(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "x.csv")
	b, err := os.ReadFile(cliLedger)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csvPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	pqPath := filepath.Join(dir, "x.parquet")
	jsonlPath := filepath.Join(dir, "x.jsonl")
	for _, out := range []string{pqPath, jsonlPath} {
		if _, err := ledger.Export(csvPath, out, ledger.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	split := splitLedger(t, 101) // lines 2..101 in a.csv, the rest in b.csv
	var eps []*ledger.Episode
	if err := ledger.ReadEpisodes(csvPath, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		eps = append(eps, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// The first row (line 2) is team red; the first blue row is later.
	blueLine, blueRow := firstLine(t, ",blue,")
	if blueLine <= 2 {
		t.Fatalf("first blue row on line %d: the test needs a red row before it", blueLine)
	}
	// The first blue row of b.csv: line 1 of b.csv is its header.
	bBlue := 0
	if bb, err := os.ReadFile(split[1]); err == nil {
		for i, l := range strings.Split(string(bb), "\n") {
			if strings.Contains(l, ",blue,") {
				bBlue = i + 1
				break
			}
		}
	}
	blue := `team == "blue"`
	outcome := func(q Query) error { return errOf(Rates(q, RatesSpec{Outcome: "team"})) }
	weight := func(q Query) error {
		q.Weight = "team"
		return errOf(Rates(q, RatesSpec{Outcome: "duplicated"}))
	}
	paired := func(q Query) error {
		return errOf(Paired(q, PairedSpec{Outcome: "team", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key"}}))
	}
	where := func(q Query) error {
		q.Where += " && team > 3"
		return errOf(Rates(q, RatesSpec{Outcome: "duplicated"}))
	}
	notBinary := `team: outcome: value "blue" is not binary`
	for _, tc := range []struct {
		name string
		q    Query
		run  func(Query) error
		want string
	}{
		{"csv outcome, first row", Query{Source: &table.Files{Paths: []string{csvPath}}}, outcome, csvPath + `:2: team: outcome: value "red" is not binary`},
		{"csv outcome after --where", Query{Source: &table.Files{Paths: []string{csvPath}}, Where: blue}, outcome, csvPath + ":" + strconv.Itoa(blueLine) + ": " + notBinary},
		{"csv weight", Query{Source: &table.Files{Paths: []string{csvPath}}, Where: blue}, weight, csvPath + ":" + strconv.Itoa(blueLine) + `: team: weight: value "blue" is not a finite number ≥ 0`},
		{"csv paired", Query{Source: &table.Files{Paths: []string{csvPath}}, Where: blue}, paired, csvPath + ":" + strconv.Itoa(blueLine) + ": " + notBinary},
		{"csv where", Query{Source: &table.Files{Paths: []string{csvPath}}, Where: blue}, where, csvPath + ":" + strconv.Itoa(blueLine) + `: Where: `},
		{"jsonl", Query{Source: &table.Files{Paths: []string{jsonlPath}}, Where: blue}, outcome, jsonlPath + ":" + strconv.Itoa(blueLine-1) + ": " + notBinary},
		{"parquet", Query{Source: &table.Files{Paths: []string{pqPath}}, Where: blue}, outcome, pqPath + ": row " + strconv.Itoa(blueRow) + ": " + notBinary},
		{"parquet paired", Query{Source: &table.Files{Paths: []string{pqPath}}, Where: blue}, paired, pqPath + ": row " + strconv.Itoa(blueRow) + ": " + notBinary},
		{"second file", Query{Source: &table.Files{Paths: split}, Where: blue + ` && episode_id > "ep0100"`}, outcome, split[1] + ":" + strconv.Itoa(bBlue) + ": " + notBinary},
		{"in memory", Query{Source: table.Episodes(eps), Where: blue}, outcome, `the episodes: episode "` + eps[blueRow].EpisodeID + `": ` + notBinary},
	} {
		err := tc.run(tc.q)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %s…", tc.name, err, tc.want)
		}
	}
	// The filter's row error names the Where field, which a command
	// renames to its flag, keeping the place.
	err = fieldtext.Rename(where(Query{Source: &table.Files{Paths: []string{csvPath}}, Where: blue}), map[string]string{"Where": "--where"})
	if want := csvPath + ":" + strconv.Itoa(blueLine) + ": --where: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("renamed where: %v\nwant %s…", err, want)
	}
}
