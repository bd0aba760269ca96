package testfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Gunzip returns the decompressed contents of the gzip file at path.
func Gunzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// GunzipTemp decompresses the gzip file at src into a file called name in
// a fresh t.TempDir() and returns that file's path; any failure is fatal.
func GunzipTemp(t testing.TB, src, name string) string {
	t.Helper()
	b, err := Gunzip(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadCSV returns every record of the CSV file at path, its header
// first; any failure is fatal.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// ReadJSONLinesGz reads a gzipped JSON Lines file, one T a line, with
// encoding/json alone (so that tests of the analysis layers do not depend
// on the ledger readers). Errors are returned unwrapped, for the caller to
// add how to make a missing file.
func ReadJSONLinesGz[T any](path string) ([]*T, error) {
	data, err := Gunzip(path)
	if err != nil {
		return nil, err
	}
	var out []*T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		v := new(T)
		if err := json.Unmarshal(sc.Bytes(), v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
