package testfile

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestGunzipRoundTrip(t *testing.T) {
	want := []byte("{\"episode_id\":\"a\"}\n{\"episode_id\":\"b\"}\n")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(want)
	zw.Close()
	src := filepath.Join(t.TempDir(), "x.jsonl.gz")
	if err := os.WriteFile(src, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Gunzip(src)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Gunzip = %q, %v; want %q", got, err, want)
	}
	tmp := GunzipTemp(t, src, "x.jsonl")
	if b, err := os.ReadFile(tmp); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("GunzipTemp wrote %q, %v", b, err)
	}
	type line struct {
		ID string `json:"episode_id"`
	}
	eps, err := ReadJSONLinesGz[line](src)
	if err != nil || len(eps) != 2 || eps[0].ID != "a" || eps[1].ID != "b" {
		t.Fatalf("ReadJSONLinesGz = %d lines, %v", len(eps), err)
	}
	if _, err := Gunzip(filepath.Join(t.TempDir(), "missing.gz")); !os.IsNotExist(err) {
		t.Fatalf("missing file: err %v, want not-exist", err)
	}
}

// ReadCSV returns the header and the rows as written.
func TestReadCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,\"x,y\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := ReadCSV(t, path)
	if len(got) != 2 || len(got[0]) != 2 || got[0][1] != "b" || got[1][0] != "1" || got[1][1] != "x,y" {
		t.Errorf("ReadCSV = %q", got)
	}
}
