package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

const sampleLedger = "../testdata/ledger/sample.csv"

// job is a report of the sample ledger into out, collecting warnings.
func job(out string, warns *[]string) Job {
	return Job{In: sampleLedger, Out: out, Meta: Meta{Toolkit: "test", Schema: ledger.SchemaVersion, Go: "go"},
		Analyze: func(d *table.Data) *paper.Results {
			return paper.Analyze(d, paper.Options{Tools: paper.NativeTools()})
		},
		Warn: func(m string) { *warns = append(*warns, m) }}
}

func TestGenerate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rep")
	var warns []string
	j := job(out, &warns)
	read := false
	j.ReadDone = func() { read = true }
	w, err := Generate(j)
	if err != nil {
		t.Fatal(err)
	}
	if !read {
		t.Error("ReadDone was not called")
	}
	d, err := table.Read(sampleLedger, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Episodes != d.Len() {
		t.Errorf("Episodes = %d, want %d", w.Episodes, d.Len())
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "- Source: "+sampleLedger) {
		t.Errorf("report.md names no source:\n%.400s", md)
	}
	var n int
	filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
		// The manifest is the directory's bookkeeping, not a report file.
		if err == nil && !e.IsDir() && !strings.HasPrefix(p, filepath.Join(out, "figures")) && e.Name() != outfile.ManifestName {
			n++
		}
		return err
	})
	if n != w.Files {
		t.Errorf("%d files under %s (figures aside), Generate says %d", n, out, w.Files)
	}
}

// A failing extra step leaves no report directory behind.
func TestGenerateAllOrNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rep")
	var warns []string
	j := job(out, &warns)
	boom := errors.New("boom")
	var cols []string
	j.Extra = func(u *outfile.Unit, _ string, d *table.Data) ([]string, error) {
		cols = d.Columns
		return nil, boom
	}
	if _, err := Generate(j); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed report (%v)", out, err)
	}
	if cols != nil {
		t.Errorf("with Extra the ledger is read with every column, got %v", cols)
	}
}

func TestGenerateMissingLedger(t *testing.T) {
	var warns []string
	j := job(filepath.Join(t.TempDir(), "rep"), &warns)
	j.In = filepath.Join(t.TempDir(), "none.csv")
	if _, err := Generate(j); err == nil || !strings.Contains(err.Error(), "none.csv") {
		t.Fatalf("err = %v, want one naming the ledger", err)
	}
}
