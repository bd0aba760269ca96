package planjson

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type ep struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

type problem struct {
	line  int
	field string
	msg   string
}

func (p *problem) Error() string { return fmt.Sprintf("%d: %s: %s", p.line, p.field, p.msg) }

func parse(data string) ([]ep, error) {
	var out []ep
	fail := func(off int64, field, msg string) error {
		return &problem{Line([]byte(data), off), field, msg}
	}
	err := Parse([]byte(data), fail, func(i int, off int64, e ep) error {
		if e.Name == "" {
			return fail(off, fmt.Sprintf("episodes[%d].name", i), "empty")
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// TestParse: both forms read, and each problem is at its episode's line
// and field.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{`[{"name":"a"},{"name":"b","n":2}]`, 2, ""},
		{"{\"episodes\": [\n {\"name\":\"a\"}\n]}", 1, ""},
		{"[\n {\"name\":\"a\"},\n {\"name\":\"a\",\"n\":\"x\"}\n]", 0, "3: episodes[1].n: want int, got JSON string"},
		{"[\n {\"name\":\"a\",\"speed\":1}\n]", 0, `2: episodes[0]: json: unknown field "speed"`},
		{"[\n {\"name\":\"\"}\n]", 0, "2: episodes[0].name: empty"},
		{`{"plan": []}`, 0, `1: plan: unknown field`},
		{`{"episodes": []} x`, 0, "unexpected content after the plan"},
		{`"x"`, 0, "a plan is"},
		{``, 0, "not a JSON plan"},
	} {
		got, err := parse(c.in)
		if c.want == "" {
			if err != nil || len(got) != c.n {
				t.Errorf("%q: %v %v", c.in, got, err)
			}
			continue
		}
		var p *problem
		if !errors.As(err, &p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`[{"name":"a"}]`, `{"episodes":[{"name":"a","n":1}]}`, `[`, `{"episodes":`, `[1,2]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parse(s) // never panics
	})
}

// TestEpisodes: check's field error is located at its episode's field, any
// other error at the episode, a repeated id at the later episode, and keep
// sees only the episodes that passed.
func TestEpisodes(t *testing.T) {
	for _, c := range []struct {
		in   string
		kept int
		want string
	}{
		{"[\n {\"name\":\"a\"},\n {\"name\":\"b\"}\n]", 2, ""},
		{"[\n {\"name\":\"a\"},\n {\"name\":\"b\",\"n\":-1}\n]", 1, "3: episodes[1].n: -1 is negative"},
		{"[\n {\"name\":\"a\",\"n\":7}\n]", 0, "2: episodes[0]: seven"},
		{"[\n {\"name\":\"a\"},\n {\"name\":\"b\"},\n {\"name\":\"a\"}\n]", 2, `4: episodes[2].episode_id: duplicate episode id "a" (also episodes[0])`},
	} {
		data := []byte(c.in)
		fail := func(off int64, field, msg string) error { return &problem{Line(data, off), field, msg} }
		var kept []ep
		err := Episodes(data, fail, func(e *ep) (string, error) {
			switch {
			case e.N < 0:
				return "", FieldErr("n", "%d is negative", e.N)
			case e.N == 7:
				return "", errors.New("seven")
			}
			return e.Name, nil
		}, func(e ep) { kept = append(kept, e) })
		if len(kept) != c.kept {
			t.Errorf("%q: kept %v, want %d", c.in, kept, c.kept)
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.in, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}
