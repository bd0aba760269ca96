package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// controlFree reports whether s holds no C0 control character but
// newline, no DEL and no C1 control character.
func controlFree(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return false
		}
	}
	return true
}

// Issue 37, case 5: text from data is data. A label holding a control
// character (an OSC sequence, BEL, a newline) is an error naming the file,
// line and field, for validate and every other command, by the row reader
// and by Parquet's column scan; text a ledger may carry (a user's extra
// columns) reaches no terminal or document as a control sequence: text,
// Markdown, LaTeX and HTML show it escaped, a Markdown row or a LaTeX
// line is never split, CSV quotes it. Before, validate accepted the labels
// and rates and model printed them raw.
func TestLabelsAreData(t *testing.T) {
	dir := t.TempDir()
	const osc = "\x1b]0;pwned\x07"
	lines := readSample(t)
	for _, bad := range []struct{ field, value, want string }{
		{"model", "gpt" + osc, "model: control character U+001B"},
		{"harness", "min\nimal", "harness: control character U+000A"},
		{"template", "T\u0085", "template: control character U+0085"},
		{"episode_id", "s-\x07", "episode_id: control character U+0007"},
	} {
		col := map[string]int{"episode_id": 0, "model": 2, "harness": 3, "template": 8}[bad.field]
		c := strings.Split(lines[1], ",")
		c[col] = `"` + bad.value + `"`
		p := filepath.Join(dir, bad.field+".csv")
		writeFile(t, p, lines[0]+"\n"+strings.Join(c, ",")+"\n"+strings.Join(lines[2:], "\n")+"\n")
		eps := ledgertest.ReadEpisodes(t, samplePath)
		e := *eps[0]
		switch bad.field {
		case "model":
			e.Model = bad.value
		case "harness":
			e.Harness = bad.value
		case "template":
			e.Template = bad.value
		case "episode_id":
			e.EpisodeID = bad.value
		}
		eps[0] = &e
		pq := filepath.Join(dir, bad.field+".parquet")
		ledgertest.WriteParquet(t, pq, eps)
		// Every command that reads the column (every one reads the ids).
		by := bad.field
		if by == "episode_id" {
			by = "contract"
		}
		for _, args := range [][]string{
			{"validate", p},
			{"rates", "--in", p, "--outcome", "duplicated", "--by", by},
			{"rates", "--in", pq, "--outcome", "duplicated", "--by", by},
			{"validate", pq},
		} {
			code, stdout, stderr := runCmd(t, args...)
			where := filepath.Base(args[len(args)-1])
			if args[0] != "validate" {
				where = filepath.Base(args[2])
			}
			if out := stdout + stderr; code != exitFailure || !strings.Contains(out, bad.want) || !strings.Contains(out, where) {
				t.Errorf("%s %s: exit %d, stderr %q; want 1 and %q", bad.field, args, code, stderr, bad.want)
			}
			if !controlFree(stdout + stderr) {
				t.Errorf("%v printed a control character: %q", args, stdout+stderr)
			}
		}
	}

	// An extra column is the user's text, kept as it is, and escaped when
	// shown.
	data := filepath.Join(cliData, "episodes.csv")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), ",red,", `,"red`+osc+"\nline two|x & y_1 % 2"+`",`)
	ext := filepath.Join(dir, "extra.csv")
	writeFile(t, ext, s)
	for _, f := range []string{"text", "md", "latex", "csv", "json"} {
		for _, args := range [][]string{
			{"rates", "--in", ext, "--outcome", "eos", "--by", "team", "--format", f},
			{"model", "--in", ext, "--formula", "eos ~ team", "--format", f},
			{"means", "--in", ext, "--outcome", "tool_calls", "--by", "team", "--format", f},
		} {
			code, stdout, stderr := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			switch f {
			case "csv":
				// Full fidelity, quoted: the value reads back as written.
				if !strings.Contains(stdout, `"red`+osc+"\nline two|x & y_1 % 2") && !strings.Contains(stdout, `red`+osc) {
					t.Errorf("%v: CSV lost the value:\n%q", args, stdout)
				}
				continue
			case "json":
				if !controlFree(stdout) || strings.Contains(stdout, "\x1b") {
					t.Errorf("%v: raw control characters in JSON: %q", args, stdout)
				}
				continue
			}
			want := `red\x1b]0;pwned\a\nline two`
			if f == "latex" {
				want = `red\textbackslash{}x1b]0;pwned\textbackslash{}a\textbackslash{}nline two`
			}
			if !controlFree(stdout+stderr) || !strings.Contains(stdout, want) {
				t.Errorf("%v: the label is not escaped:\n%q", args, stdout)
			}
			for _, l := range strings.Split(stdout, "\n") {
				if f == "md" && strings.HasPrefix(l, "|") && !strings.HasSuffix(l, "|") {
					t.Errorf("%v: a Markdown row is split: %q", args, l)
				}
				if f == "md" && strings.Contains(l, "line two") && !strings.Contains(l, `line two\|x`) {
					t.Errorf("%v: a pipe in a Markdown cell: %q", args, l)
				}
				if f == "latex" && strings.Contains(l, "line two") && !strings.Contains(l, `x \& y\_1 \% 2`) {
					t.Errorf("%v: LaTeX specials not escaped: %q", args, l)
				}
			}
		}
	}
}
