package guard_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// example is an Example function's body, as a reader sees it, and its
// output.
type example struct {
	name, body, output string
	shown              bool
}

var exampleFunc = regexp.MustCompile(`^func (Example\w*)\(\) \{$`)

// readExamples reads the Example functions of a Go test file: the body
// de-indented by one tab, without its "// Output:" comment, and the
// output.
func readExamples(t *testing.T, path, prefix string) []*example {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*example
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		m := exampleFunc.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		ex := &example{name: prefix + m[1]}
		var body, output []string
		inOutput := false
		for i++; i < len(lines) && lines[i] != "}"; i++ {
			line := strings.TrimPrefix(lines[i], "\t")
			switch {
			case line == "// Output:":
				inOutput = true
			case inOutput:
				output = append(output, strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
			default:
				body = append(body, line)
			}
		}
		ex.body, ex.output = strings.Join(body, "\n"), strings.Join(output, "\n")
		out = append(out, ex)
	}
	return out
}

// Every Go block of docs/guard.md is the body of an Example function
// (which go test runs), followed by a text block with its output, and
// every Example is shown there.
func TestDocExamples(t *testing.T) {
	examples := append(readExamples(t, "example_test.go", ""), readExamples(t, "sqlitestore/example_test.go", "sqlitestore.")...)
	doc, err := os.ReadFile("../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(string(doc))
	for i, b := range blocks {
		if b.lang != "go" {
			continue
		}
		var ex *example
		for _, e := range examples {
			if e.body == b.text {
				ex = e
			}
		}
		if ex == nil {
			t.Errorf("docs/guard.md:%d: a Go block that is no Example function's body", b.line)
			continue
		}
		ex.shown = true
		if i+1 >= len(blocks) || blocks[i+1].lang != "text" || blocks[i+1].text != ex.output {
			t.Errorf("docs/guard.md:%d: %s is not followed by a text block with its output:\n%s", b.line, ex.name, ex.output)
		}
	}
	for _, e := range examples {
		if !e.shown {
			t.Errorf("%s is not shown in docs/guard.md", e.name)
		}
	}
}

type block struct {
	lang, text string
	line       int
}

func fencedBlocks(doc string) []block {
	var out []block
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := block{lang: strings.TrimPrefix(lines[i], "```"), line: i + 1}
		var text []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			text = append(text, lines[i])
		}
		b.text = strings.Join(text, "\n")
		out = append(out, b)
	}
	return out
}
