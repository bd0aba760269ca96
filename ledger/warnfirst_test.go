package ledger

import (
	"bytes"
	"testing"
)

func TestFirstWarnings(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want string
	}{
		{"none", 0, ""},
		{"under the limit", 2, "w: a.csv:1: model: odd 0\nw: a.csv:2: model: odd 1\n"},
		{"at the limit", 3, "w: a.csv:1: model: odd 0\nw: a.csv:2: model: odd 1\nw: a.csv:3: model: odd 2\n"},
		{"over the limit", 5, "w: a.csv:1: model: odd 0\nw: a.csv:2: model: odd 1\nw: a.csv:3: model: odd 2\n… and 2 more\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			f := NewFirstWarnings(&buf, 3, "w: ", "… and %d more\n")
			for i := range tc.n {
				f.Warn(Problem{File: "a.csv", Line: i + 1, Field: "model", Msg: "odd " + string(rune('0'+i))})
			}
			if f.Count() != tc.n {
				t.Errorf("Count = %d, want %d", f.Count(), tc.n)
			}
			f.Flush()
			f.Flush() // a second flush adds nothing
			if got := buf.String(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
