package testfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckGolden compares got with the golden file at path. With update it
// writes got to path instead (creating its directory; through a temporary
// file and a rename, so an interrupted run never leaves half a golden).
// On a mismatch the test fails with a line diff of the two (want → got)
// and the command that accepts the change.
//
// Each test package keeps its own -update flag and passes its value, so
// that packages may name the flag as they like and this package never
// registers one.
func CheckGolden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	CheckGoldenFunc(t, path, got, update, nil)
}

// CheckGoldenFunc is CheckGolden with its own notion of equality: equal,
// if not nil, is asked when the bytes differ and may accept the output
// (for instance numbers equal to a relative tolerance). The diff on a
// failure is still of the bytes.
func CheckGoldenFunc(t testing.TB, path string, got []byte, update bool, equal func(got, want []byte) bool) {
	t.Helper()
	if update {
		if err := writeGolden(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run %s to create it)", err, acceptHint(t))
		return
	}
	if bytes.Equal(got, want) || equal != nil && equal(got, want) {
		return
	}
	t.Errorf("%s differs from the golden file (run %s to accept the change):\n%s", path, acceptHint(t), LineDiff(want, got))
}

func acceptHint(t testing.TB) string {
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	return fmt.Sprintf("go test -run '^%s$' -update", name)
}

func writeGolden(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".golden-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// Limits of LineDiff: lines of output, and the size of the differing
// middle (lines of want × lines of got) it aligns line by line.
const (
	diffMaxLines = 60
	diffMaxCells = 4 << 20
	diffContext  = 2
)

// LineDiff returns a readable line diff from want to got: hunks with line
// numbers, "-" for lines only in want, "+" for lines only in got and two
// lines of context, at most 60 lines. Lines are aligned by a longest
// common subsequence after the common head and tail are set aside; when
// the differing middle is too large for that, its lines are shown as
// removed and added. Empty when the two are equal.
func LineDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	ops := diffOps(a, b)
	var sb strings.Builder
	lines, more := 0, 0
	emit := func(s string) {
		if lines < diffMaxLines {
			sb.WriteString(s)
			sb.WriteByte('\n')
			lines++
		} else {
			more++
		}
	}
	// Group the changes that lie within 2·context lines of each other
	// into hunks and print each with its context.
	var changed []int
	for i, o := range ops {
		if o.kind != ' ' {
			changed = append(changed, i)
		}
	}
	for k := 0; k < len(changed); {
		first, last := changed[k], changed[k]
		for k++; k < len(changed) && changed[k]-last <= 2*diffContext+1; k++ {
			last = changed[k]
		}
		lo, hi := max(0, first-diffContext), min(len(ops), last+diffContext+1)
		emit(fmt.Sprintf("@@ want line %d, got line %d @@", ops[lo].a+1, ops[lo].b+1))
		for _, o := range ops[lo:hi] {
			emit(string(o.kind) + " " + o.text)
		}
	}
	if more > 0 {
		fmt.Fprintf(&sb, "… %d more diff lines\n", more)
	}
	if !bytes.HasSuffix(want, []byte("\n")) != !bytes.HasSuffix(got, []byte("\n")) {
		sb.WriteString("(the two differ in the final newline)\n")
	}
	return sb.String()
}

// diffOp is one line of an edit script: ' ' kept, '-' only in want, '+'
// only in got; a and b are the line's index in want and got (the next
// line's, for a line the other side lacks).
type diffOp struct {
	kind byte
	a, b int
	text string
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func diffOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{' ', i, i, a[i]})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) <= diffMaxCells {
		ops = append(ops, lcsOps(ma, mb, pre)...)
	} else {
		for i, s := range ma {
			ops = append(ops, diffOp{'-', pre + i, pre, s})
		}
		for j, s := range mb {
			ops = append(ops, diffOp{'+', pre + len(ma), pre + j, s})
		}
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, diffOp{' ', len(a) - k, len(b) - k, a[len(a)-k]})
	}
	return ops
}

// lcsOps aligns a and b by a longest common subsequence (dynamic
// programming over the suffixes); off is the index of their first line.
func lcsOps(a, b []string, off int) []diffOp {
	n, m := len(a), len(b)
	l := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return l[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(at(i+1, j), at(i, j+1))
			if a[i] == b[j] {
				v = at(i+1, j+1) + 1
			}
			l[i*(m+1)+j] = v
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', off + i, off + j, a[i]})
			i++
			j++
		case i < n && (j == m || at(i+1, j) >= at(i, j+1)):
			ops = append(ops, diffOp{'-', off + i, off + j, a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', off + i, off + j, b[j]})
			j++
		}
	}
	return ops
}
