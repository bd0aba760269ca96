package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("12345"), 0o644)
	for _, c := range []struct {
		path  string
		limit int64
		want  string // "" for the content
	}{
		{small, 5, ""},
		{small, 4, small + ": larger than 4 bytes, the limit for a test file"},
		{"/dev/zero", 1 << 20, "/dev/zero: larger than 1 MiB, the limit for a test file"},
		{filepath.Join(dir, "missing"), 5, "no such file"},
	} {
		b, err := ReadFile(c.path, "a test file", c.limit)
		switch {
		case c.want == "" && (err != nil || string(b) != "12345"):
			t.Errorf("ReadFile(%s, %d) = %q, %v", c.path, c.limit, b, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("ReadFile(%s, %d): %v, want %q", c.path, c.limit, err, c.want)
		}
		var te *TooLargeError
		if strings.Contains(c.want, "larger") && !errors.As(err, &te) {
			t.Errorf("ReadFile(%s): %T, want a *TooLargeError", c.path, err)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1 << 10: "1 KiB", 1000: "1000 bytes", 1536 << 10: "1536 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
