package testfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\ne\nf\n",
			"@@ want line 2, got line 2 @@\n  b\n  c\n- d\n+ X\n  e\n  f\n"},
		{"added line", "a\nb\n", "a\nb\nc\n", "@@ want line 1, got line 1 @@\n  a\n  b\n+ c\n"},
		{"removed first line", "a\nb\nc\n", "b\nc\n", "@@ want line 1, got line 1 @@\n- a\n  b\n  c\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"@@ want line 1, got line 1 @@\n- 1\n+ x\n  2\n  3\n@@ want line 8, got line 8 @@\n  8\n  9\n- 10\n+ y\n"},
		{"final newline", "a\n", "a", "(the two differ in the final newline)\n"},
	}
	for _, c := range cases {
		if got := LineDiff([]byte(c.want), []byte(c.got)); got != c.diff {
			t.Errorf("%s: LineDiff =\n%s\nwant\n%s", c.name, got, c.diff)
		}
	}
}

func TestLineDiffCapped(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 500 {
		a.WriteString("old " + string(rune('a'+i%26)) + "\n")
		b.WriteString("new " + string(rune('a'+i%26)) + "\n")
	}
	d := LineDiff([]byte(a.String()), []byte(b.String()))
	if n := strings.Count(d, "\n"); n != diffMaxLines+1 || !strings.Contains(d, "more diff lines") {
		t.Errorf("capped diff has %d lines:\n%s", n, d)
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = format
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = true }

func TestCheckGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	r := &recorder{TB: t}
	CheckGolden(r, path, []byte("one\n"), false)
	if !r.failed {
		t.Error("a missing golden file passed")
	}
	CheckGolden(t, path, []byte("one\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	CheckGolden(t, path, []byte("one\n"), false)
	r = &recorder{TB: t}
	CheckGolden(r, path, []byte("two\n"), false)
	if !r.failed || !strings.Contains(r.msg, "differs from the golden file") {
		t.Errorf("a changed output passed (%v, %q)", r.failed, r.msg)
	}
	r = &recorder{TB: t}
	CheckGoldenFunc(r, path, []byte("ONE\n"), false, func(got, want []byte) bool {
		return strings.EqualFold(string(got), string(want))
	})
	if r.failed {
		t.Error("CheckGoldenFunc rejected an output its equal accepts")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("-update left %d files in the directory, want 1", len(ents))
	}
}
