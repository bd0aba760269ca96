package ledger

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// osFooter is a plain file as a footerFile, for tests that forge footers.
type osFooter struct{ *os.File }

func (f osFooter) Size() (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (f osFooter) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	_, err := f.Seek(size, io.SeekStart)
	return err
}

// forgeKV rewrites the footer of the Parquet file at path with key set to
// value (on top of what it has), as a tool copying metadata would.
func forgeKV(t *testing.T, path, key, value string) {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	md := r.MetaData()
	r.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := appendFooterKV(osFooter{f}, md, key, value); err != nil {
		t.Fatal(err)
	}
}

func certified(t *testing.T, path string) bool {
	t.Helper()
	p, err := openPQ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	return p.idsCertified()
}

// The writer certifies an episode table's ids when they are valid and
// unique, and only then; the certificate holds only for the bytes it was
// made for, so a footer carried onto other data is checked in full.
func TestEpisodeIDCertificate(t *testing.T) {
	dir := t.TempDir()
	var eps []*Episode
	for i := range 3000 { // several pages, one row group
		eps = append(eps, synthEpisode(i))
	}
	good := filepath.Join(dir, "good.parquet")
	writeEpisodes(t, good, eps, nil)
	cert, ok, err := ParquetKeyValue(good, MetaEpisodeIDs)
	if err != nil || !ok || !strings.HasPrefix(cert, "v1 sha256:") {
		t.Fatalf("certificate %q, %v, %v", cert, ok, err)
	}
	if !certified(t, good) {
		t.Fatal("the writer's own file does not match its certificate")
	}
	// The file reads as before: every row, ids and all.
	if got := readAll(t, good, ReadOptions{}); len(got) != len(eps) || got[2999].EpisodeID != eps[2999].EpisodeID {
		t.Fatalf("read back %d episodes", len(got))
	}
	// Same episodes, same bytes.
	again := filepath.Join(dir, "again.parquet")
	writeEpisodes(t, again, eps, nil)
	a, _ := os.ReadFile(good)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Error("two writes of the same episodes differ")
	}

	// Not certified: a duplicate id, an empty id.
	dup := filepath.Join(dir, "dup.parquet")
	writeEpisodes(t, dup, append(eps[:10:10], eps[3]), nil)
	empty := filepath.Join(dir, "empty.parquet")
	noID := *eps[0]
	noID.EpisodeID = ""
	writeEpisodes(t, empty, []*Episode{eps[1], &noID}, nil)
	for _, p := range []string{dup, empty} {
		if _, ok, _ := ParquetKeyValue(p, MetaEpisodeIDs); ok {
			t.Errorf("%s: certified", filepath.Base(p))
		}
	}

	// The good file's certificate carried onto the duplicate's footer (a
	// tool that copies key-value metadata): it does not match, the ids are
	// decoded and the duplicate is found, by the column scan and by rows.
	forgeKV(t, dup, MetaEpisodeIDs, cert)
	if certified(t, dup) {
		t.Fatal("a copied certificate matched other data")
	}
	err = ReadEpisodes(dup, ReadOptions{Columns: []string{"weight"}}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "episode_id: duplicate") {
		t.Errorf("forged certificate, row reader: %v", err)
	}
	if err := ScanParquet(dup, []string{"weight"}, func(*Batch) error { return nil }); !errors.Is(err, ErrRowScan) {
		t.Errorf("forged certificate, column scan: %v; want ErrRowScan", err)
	}

	// One byte of the id column changed (an id becomes another): the
	// certificate no longer matches.
	flipped := filepath.Join(dir, "flipped.parquet")
	b = append([]byte(nil), a...)
	r, err := file.OpenParquetFile(good, false)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := r.MetaData().RowGroup(0).ColumnChunk(r.MetaData().Schema.ColumnIndexByName("episode_id"))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	b[cc.DataPageOffset()+cc.TotalCompressedSize()-3] ^= 1
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if certified(t, flipped) {
		t.Error("a changed id column matched the certificate")
	}

	// The files of a directory are checked across files whatever their
	// certificates: two certified files holding the same episode.
	ds := filepath.Join(dir, "ds")
	if err := os.Mkdir(ds, 0o755); err != nil {
		t.Fatal(err)
	}
	writeEpisodes(t, filepath.Join(ds, "a.parquet"), eps[:5], nil)
	writeEpisodes(t, filepath.Join(ds, "b.parquet"), eps[4:6], nil)
	err = ReadEpisodes(ds, ReadOptions{Columns: []string{"weight"}}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "episode_id: duplicate") {
		t.Errorf("directory of certified files sharing an id: %v", err)
	}
}
