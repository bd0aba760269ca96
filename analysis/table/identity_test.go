package table

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Every source refuses an episode held twice, whatever columns a scan
// asks for: before, a scan of weight alone counted a copied row twice
// (issue 37, case 1).
func TestSourcesRefuseDuplicateIDs(t *testing.T) {
	eps := sample(t)[:50]
	dup := append(append([]*ledger.Episode{}, eps...), eps[7])
	dir := t.TempDir()
	pq := filepath.Join(dir, "dup.parquet")
	ledgertest.WriteParquet(t, pq, dup)
	csv := filepath.Join(dir, "dup.csv")
	w, err := ledger.CreateEpisodes(csv, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dup {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sources := []struct {
		name string
		src  Source
		want string
	}{
		{"parquet columns", &Files{Paths: []string{pq}}, "dup.parquet: row 50: episode_id: duplicate"},
		{"parquet rows", ByRows(&Files{Paths: []string{pq}}), "dup.parquet: row 50: episode_id: duplicate"},
		{"csv", &Files{Paths: []string{csv}}, "dup.csv:52: episode_id: duplicate"},
		{"episodes", Episodes(dup), `the episodes: row 50: episode_id: duplicate "` + eps[7].EpisodeID + `" (first at row 7)`},
		{"rows", Rows(toRows(dup)), "the episodes: row 50: episode_id: duplicate"},
		{"held", Held(NewData(dup), nil), "the episodes: row 50: episode_id: duplicate"},
		{"held subset", Held(NewData(dup), []int32{0, 1}), "the episodes: row 50: episode_id: duplicate"},
		{"held by rows", ByRows(Held(NewData(dup), nil)), "the episodes: row 50: episode_id: duplicate"},
	}
	for _, c := range sources {
		t.Run(c.name, func(t *testing.T) {
			for _, cols := range [][]string{{"weight"}, {"duplicated", "model"}, nil} {
				n := 0
				err := c.src.Scan(cols, nil, func(b *Batch) error { n += b.N; return nil })
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Scan(%v): %d rows, error %v; want %q", cols, n, err, c.want)
				}
			}
			if _, files := c.src.(*Files); files {
				return // IDs reads a file again after its Scan
			}
			if _, err := c.src.IDs(func(int64) bool { return true }, func([]byte) {}); err == nil {
				t.Errorf("IDs: no error")
			}
		})
	}
	// A Data read from a ledger is checked by the reader.
	if _, err := Read(csv, ledger.ReadOptions{Columns: []string{"weight"}}); err == nil || !strings.Contains(err.Error(), "episode_id: duplicate") {
		t.Errorf("Read(weight): %v, want the duplicate", err)
	}
	if _, err := Read(pq, ledger.ReadOptions{Columns: []string{"weight"}}); err == nil || !strings.Contains(err.Error(), "episode_id: duplicate") {
		t.Errorf("Read(weight) of Parquet: %v, want the duplicate", err)
	}
	// Appending a copy later is caught at the next scan.
	d := NewData(eps)
	if err := Held(d, nil).Scan([]string{"weight"}, nil, func(*Batch) error { return nil }); err != nil {
		t.Fatal(err)
	}
	d.Append(eps[3])
	if err := Held(d, nil).Scan([]string{"weight"}, nil, func(*Batch) error { return nil }); err == nil {
		t.Errorf("a copy appended after a scan: no error")
	}
}

// Rows without an id (a user's own rows, a file without the column) have
// no identity to check; distinct ids pass.
func TestSourcesWithoutIDs(t *testing.T) {
	rows := []frame.Row{mapRow{"y": {Kind: ledger.KindBool, Bool: true}}, mapRow{"y": {Kind: ledger.KindBool}}}
	if err := Rows(rows).Scan(nil, nil, func(*Batch) error { return nil }); err != nil {
		t.Errorf("rows without ids: %v", err)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "noid.csv")
	if err := os.WriteFile(csv, []byte("weight,duplicated\n1,true\n1,true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := (&Files{Paths: []string{csv}}).Scan([]string{"duplicated"}, nil, func(b *Batch) error { n += b.N; return nil }); err != nil || n != 2 {
		t.Errorf("CSV without episode_id: %d rows, %v", n, err)
	}
}

func toRows(eps []*ledger.Episode) []frame.Row {
	rows := make([]frame.Row, len(eps))
	for i, e := range eps {
		rows[i] = e
	}
	return rows
}

// mapRow is a row of named values.
type mapRow map[string]ledger.Value

func (r mapRow) Get(name string) (ledger.Value, bool) { v, ok := r[name]; return v, ok }

// The files of one Files source are one ledger: an episode in two of them
// is a duplicate, each file's certificate notwithstanding.
func TestFilesAcross(t *testing.T) {
	eps := sample(t)[:20]
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet"), filepath.Join(dir, "c.parquet")
	ledgertest.WriteParquet(t, a, eps[:10])
	ledgertest.WriteParquet(t, b, eps[9:])
	ledgertest.WriteParquet(t, c, eps[10:])
	n := 0
	count := func(b *Batch) error { n += b.N; return nil }
	err := (&Files{Paths: []string{a, b}}).Scan([]string{"weight"}, nil, count)
	if err == nil || !strings.Contains(err.Error(), "b.parquet: episode_id: duplicate \""+eps[9].EpisodeID+"\" (also in "+a+")") {
		t.Errorf("a and b share an episode: %v", err)
	}
	n = 0
	if err := (&Files{Paths: []string{a, c}}).Scan([]string{"weight"}, nil, count); err != nil || n != 20 {
		t.Errorf("a and c: %d rows, %v", n, err)
	}
}
