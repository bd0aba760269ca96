package ledger

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestProblemError(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.csv", Line: 3, Field: "weight", Msg: "bad"}, "a.csv:3: weight: bad"},
		{Problem{File: "a.csv", Field: "weight", Msg: "bad"}, "a.csv: weight: bad"},
		{Problem{File: "a.csv", Msg: "empty"}, "a.csv: empty"},
		{Problem{Field: "eos", Msg: "x", Warning: true}, "eos: warning: x"},
	} {
		if got := tc.p.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(e *Episode)
		field string
		warn  bool
	}{
		{"unknown fault mode", func(e *Episode) { e.FaultMode = "timeout_maybe" }, "fault_mode", false},
		{"unknown contract", func(e *Episode) { e.Contract = "keys" }, "contract", false},
		{"unknown recovery", func(e *Episode) { e.Recovery = "pray" }, "recovery", false},
		{"unknown write class", func(e *Episode) { e.WriteClass = "weak" }, "write_class", false},
		{"unknown read path", func(e *Episode) { e.ReadPath = "slow" }, "read_path", false},
		{"empty model", func(e *Episode) { e.Model = "" }, "model", false},
		{"empty episode id", func(e *Episode) { e.EpisodeID = "" }, "episode_id", false},
		{"NaN weight", func(e *Episode) { e.Weight = math.NaN() }, "weight", false},
		{"zero weight", func(e *Episode) { e.Weight = 0 }, "weight", false},
		{"negative weight", func(e *Episode) { e.Weight = -1 }, "weight", false},
		{"infinite weight", func(e *Episode) { e.Weight = math.Inf(1) }, "weight", false},
		{"negative count", func(e *Episode) { e.ToolCalls = -1 }, "tool_calls", false},
		{"negative time", func(e *Episode) { e.AgentTimeS = -0.5 }, "agent_time_s", false},
		{"negative cost", func(e *Episode) { c := -1.0; e.CostUSD = &c }, "cost_usd", false},
		{"eos without success", func(e *Episode) { e.EOS, e.TaskSuccess, e.Duplicated = true, false, false }, "eos", false},
		{"eos with duplicate", func(e *Episode) { e.EOS, e.TaskSuccess, e.Duplicated = true, true, true }, "eos", false},
		{"invalid UTF-8", func(e *Episode) { e.Model = "gpt\xff" }, "model", false},
		{"social without platform", func(e *Episode) { e.Service = "social" }, "platform", true},
		{"late without delay", func(e *Episode) { e.FaultMode, e.FaultFired, e.DelayS = FaultTimeoutLate, true, 0 }, "delay_s", true},
		{"batch mode on a non-batch tool", func(e *Episode) {
			e.FaultMode, e.FocalWrite, e.WriteClass = FaultPartialBatch, "data_insert", ClassBatch
		}, "fault_mode", true},
		{"unknown tool", func(e *Episode) { e.FocalWrite = "launch_missiles" }, "focal_write", true},
		{"unknown harness", func(e *Episode) { e.Harness = "my-harness" }, "harness", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := synthEpisode(4) // fault mode timeout_late, fired, delay 90
			e.FaultMode, e.DelayS = FaultTimeoutPost, 0
			if ps := Validate(e); len(ps) != 0 {
				t.Fatalf("base episode not clean: %v", ps)
			}
			tc.edit(e)
			ps := Validate(e)
			if len(ps) != 1 {
				t.Fatalf("got %d problems %v, want 1 on %s", len(ps), ps, tc.field)
			}
			if ps[0].Field != tc.field || ps[0].Warning != tc.warn {
				t.Errorf("got %+v, want field %s warning=%v", ps[0], tc.field, tc.warn)
			}
		})
	}
}

// The plausibility rules that the paper's own design satisfies raise
// nothing: fault_fired with mode none (the focal write was issued and
// "none" applied), and partial_batch on the batch tool whatever its write
// class (keyed under keys-everywhere, E2k).
func TestValidatePaperDesignClean(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(e *Episode)
	}{
		{"none fired", func(e *Episode) { e.FaultMode, e.FaultFired = FaultNone, true }},
		{"none not fired", func(e *Episode) { e.FaultMode, e.FaultFired = FaultNone, false }},
		{"batch tool keyed", func(e *Episode) {
			e.FaultMode, e.FocalWrite, e.WriteClass = FaultPartialBatch, "data_insert_many", ClassKeyed
		}},
		{"batch tool batch", func(e *Episode) {
			e.FaultMode, e.FocalWrite, e.WriteClass = FaultPartialBatch, "data_insert_many", ClassBatch
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := synthEpisode(4)
			e.FaultMode, e.DelayS = FaultTimeoutPost, 0
			tc.edit(e)
			if ps := Validate(e); len(ps) != 0 {
				t.Errorf("got %v, want no problem", ps)
			}
		})
	}
}

// Round trips: every format reads back what was written.
func TestRoundTrip(t *testing.T) {
	var eps []*Episode
	for i := range 300 {
		e := synthEpisode(i)
		e.Extra = map[string]string{"site": []string{"lab", "", "cloud, \"eu\""}[i%3], "batch": "b" + string(rune('0'+i%10))}
		eps = append(eps, e)
	}
	// Awkward strings survive every format: a label may quote and hold
	// commas and any printable character; an extra column (data, not a
	// label) even a newline.
	eps[1].Model = "mödel \"quoted\", with comma and\u2028"
	eps[1].Extra["site"] = "a line\nand another, \"quoted\"\t\x1b"
	extra := []string{"site", "batch"}
	for _, ext := range []string{".parquet", ".csv", ".jsonl"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x"+ext)
			writeEpisodes(t, path, eps, extra)
			got := readAll(t, path, ReadOptions{})
			if len(got) != len(eps) {
				t.Fatalf("read %d rows, wrote %d", len(got), len(eps))
			}
			for i := range eps {
				if !reflect.DeepEqual(got[i], eps[i]) {
					t.Fatalf("row %d differs:\n got %+v\nwant %+v", i, got[i], eps[i])
				}
			}
			xs, err := ExtraColumns(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if ext != ".jsonl" && !reflect.DeepEqual(xs, extra) {
				t.Errorf("ExtraColumns = %v, want %v", xs, extra)
			}
		})
	}
}

func TestParquetMetadataAndColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	eps := []*Episode{synthEpisode(1), synthEpisode(2), synthEpisode(3)}
	writeEpisodesWith(t, path, eps, nil, WriteOptions{ToolkitVersion: "9.9.9-test"})
	p, err := openPQ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if got := p.meta(MetaToolkitVersion); got != "9.9.9-test" {
		t.Errorf("toolkit version %q", got)
	}
	if got := p.meta(MetaSchemaVersion); got != SchemaVersion {
		t.Errorf("schema version %q", got)
	}
	rg := p.pf.MetaData().RowGroup(0)
	cc, err := rg.ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := cc.Compression().String(); got != "ZSTD" {
		t.Errorf("compression %s, want ZSTD", got)
	}
	// A file without a group's columns has every other column, in order.
	cols, _ := fileColumns(0)
	for i, c := range cols {
		want := map[Kind]string{KindString: "BYTE_ARRAY", KindInt: "INT64", KindFloat: "DOUBLE", KindBool: "BOOLEAN"}[c.Kind]
		if got := p.pf.MetaData().Schema.Column(i).PhysicalType().String(); got != want {
			t.Errorf("%s: physical type %s, want %s", c.Name, got, want)
		}
	}
	// Only the asked-for columns (and eos's dependencies) are decoded: the
	// ids every read checks unique are vouched for by the file's
	// certificate (idcert.go).
	got := readAll(t, path, ReadOptions{Columns: []string{"eos", "weight"}})
	for i, e := range got {
		if e.EOS != eps[i].EOS || e.Weight != eps[i].Weight || e.TaskSuccess != eps[i].TaskSuccess {
			t.Errorf("row %d: wrong values", i)
		}
		if e.EpisodeID != "" || e.Model != "" {
			t.Errorf("row %d: undecoded columns filled: %+v", i, e)
		}
	}
}

func TestRawWriterCanonical(t *testing.T) {
	r := synthRaw(3, 3)
	r.Extra = map[string]string{"z": "1", "a": "2"}
	var b1, b2 bytes.Buffer
	for range 2 {
		if err := NewRawWriter(&b1).Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := NewRawWriter(&b2).Write(r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b1.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != lines[1] || lines[0]+"\n" != b2.String() {
		t.Fatalf("not deterministic:\n%s", b1.String())
	}
	if !strings.HasPrefix(lines[0], `{"episode_id":"ep-00000003","experiment":"E1",`) || !strings.HasSuffix(lines[0], `"a":"2","z":"1"}`) {
		t.Errorf("field order: %s", lines[0])
	}
	// Read back: nested episode ids inherit, and everything matches.
	path := writeFile(t, "raw.jsonl", b2.String())
	var got []*RawEpisode
	if err := ReadRaw(path, ReadOptions{}, func(x *RawEpisode) error { got = append(got, x); return nil }); err != nil {
		t.Fatal(err)
	}
	want := *r
	want.Calls = append([]Call(nil), r.Calls...)
	want.Effects = append([]Effect(nil), r.Effects...)
	for i := range want.Calls {
		want.Calls[i].EpisodeID = r.EpisodeID
	}
	for i := range want.Effects {
		want.Effects[i].EpisodeID = r.EpisodeID
	}
	// Outcome columns are the grader's and are not written to a raw line.
	var design Episode
	for i := range EpisodeColumns {
		if designCols.has(i) || i == colCostUSD {
			copyCol(&design, &want.Episode, i)
		}
	}
	design.Extra = want.Extra
	want.Episode = design
	if len(got) != 1 || !reflect.DeepEqual(got[0], &want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got[0], &want)
	}
}

func copyCol(dst, src *Episode, i int) {
	d, s := dst.ref(i), src.ref(i)
	switch {
	case d.s != nil:
		*d.s = *s.s
	case d.i != nil:
		*d.i = *s.i
	case d.f != nil:
		*d.f = *s.f
	case d.b != nil:
		*d.b = *s.b
	default:
		*d.opt = *s.opt
	}
}

func TestRawGradingAndSiblings(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.jsonl")
	f, err := CreateRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := f.Write(synthRaw(i, 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Without a grader a raw line is an error that says so.
	err = ReadEpisodes(raw, ReadOptions{}, func(*Episode) error { return nil })
	var p Problem
	if !errors.As(err, &p) || p.Line != 1 || !strings.Contains(p.Msg, "grader") {
		t.Fatalf("got %v, want a line-1 problem asking for a grader", err)
	}
	n := 0
	err = ReadGraded(raw, ReadOptions{Grader: testGrader}, func(e *Episode, r *RawEpisode) error {
		n++
		if r == nil || e.ToolCalls != 2 || e.FocalCommits != 1 || !e.EOS {
			t.Errorf("graded %+v from %v", e, r)
		}
		return nil
	})
	if err != nil || n != 5 {
		t.Fatalf("ReadGraded: %v after %d rows", err, n)
	}
}

// A calls table that refers to an episode the episode table lacks is an
// error of the calls file, naming its row.
func TestSiblingReferences(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.parquet")
	writeEpisodes(t, path, []*Episode{synthEpisode(1), synthEpisode(2)}, nil)
	cp, ep := SiblingPaths(path)
	cw, err := CreateCalls(cp)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ep-00000001", "ep-00000002", "ep-99"} {
		if err := cw.Write(&Call{EpisodeID: id, Seq: 0, Tool: "data_insert", Outcome: OutcomeOK}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	ew, err := CreateEffects(ep)
	if err != nil {
		t.Fatal(err)
	}
	if err := ew.Write(&Effect{EpisodeID: "ep-00000001", Service: "data", Tool: "data_insert", Source: SourceAgent}); err != nil {
		t.Fatal(err)
	}
	if err := ew.Close(); err != nil {
		t.Fatal(err)
	}
	err = ReadEpisodes(path, ReadOptions{}, func(*Episode) error { return nil })
	want := cp + ": row 2: episode_id: unknown episode \"ep-99\" (not in the episode table)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	// Reading the calls table as an episode table says what it is.
	err = ReadEpisodes(cp, ReadOptions{}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "is a LIMBO calls table") {
		t.Fatalf("got %v", err)
	}
}

func TestWriterAtomic(t *testing.T) {
	for _, ext := range []string{".parquet", ".csv", ".jsonl"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out"+ext)
		w, err := CreateEpisodes(path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(synthEpisode(1)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: visible before Close", ext)
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: Abort left %v", ext, ents)
		}
	}
	// A missing output directory is created.
	w, err := CreateEpisodes(filepath.Join(t.TempDir(), "new", "dir", "x.csv"), "", nil)
	if err != nil {
		t.Fatalf("missing directory: %v", err)
	}
	w.Abort()
	// Unwritable location: below a regular file.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CreateEpisodes(filepath.Join(file, "x.csv"), "", nil)
	var p Problem
	if !errors.As(err, &p) || !strings.Contains(p.Msg, "cannot create output") {
		t.Fatalf("got %v", err)
	}
}

// Problems inside nested calls and effects name the element.
func TestNestedFieldNames(t *testing.T) {
	var buf bytes.Buffer
	NewRawWriter(&buf).Write(synthRaw(1, 3))
	line := buf.String()
	for _, tc := range []struct{ edit, with, want string }{
		{`"outcome":"ok","latency_s":0.4},{"seq":2`, `"outcome":"lost","latency_s":0.4},{"seq":2`, `:1: calls[1].outcome: unknown value "lost"`},
		{`"seq":2,"t_s":5`, `"seq":2,"t_s":"5"`, `:1: calls[2].t_s: expected a number, found a string`},
		{`"source":"agent","absorbed":false,"focal":false},{"seq":2`, `"source":"agent","absorbed":2,"focal":false},{"seq":2`, `:1: effects[1].absorbed: expected a boolean`},
		{`"status":"completed"`, `"status":"done"`, `:1: final_report.status: unknown value "done"`},
		{`{"seq":0,"t_s":0,`, `{"t_s":0,`, `:1: calls[0].seq: missing`},
	} {
		if !strings.Contains(line, tc.edit) {
			t.Fatalf("test line lacks %s: %s", tc.edit, line)
		}
		path := writeFile(t, "x.jsonl", strings.Replace(line, tc.edit, tc.with, 1))
		err := ReadRaw(path, ReadOptions{}, func(*RawEpisode) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want …%s", err, tc.want)
		}
	}
}

// The checker's cache of values that passed never hides a bad value that
// follows good ones.
func TestCheckerCache(t *testing.T) {
	var eps []*Episode
	for i := range 40 {
		e := synthEpisode(i)
		if i%4 == 3 {
			e.FaultMode = "bogus" + strconv.Itoa(i%8) // same length and end bytes as good values cycle
			e.Harness = "h" + strconv.Itoa(i)
			e.DelayS = 0
		}
		eps = append(eps, e)
	}
	path := filepath.Join(t.TempDir(), "x.csv")
	writeEpisodes(t, path, eps, nil)
	var errs, warns []Problem
	err := ReadEpisodes(path, ReadOptions{Errors: func(p Problem) { errs = append(errs, p) }, Warn: func(p Problem) { warns = append(warns, p) }}, func(*Episode) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 10 || len(warns) != 10 {
		t.Fatalf("%d errors, %d warnings; want 10 of each: %v", len(errs), len(warns), warns)
	}
	for k, p := range errs {
		if p.Field != "fault_mode" || p.Line != 2+4*k+3 {
			t.Errorf("error %d: %v", k, p)
		}
	}
}

// Keys may come in any order and with escapes.
func TestJSONKeyOrderAndEscapes(t *testing.T) {
	e := synthEpisode(2)
	b := appendEpisodeJSON(nil, e, nil)
	// Reverse the members and escape one key.
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(b)), "{"), "}")
	parts := strings.Split(body, `,"`)
	for i := range parts {
		parts[i] = strings.TrimPrefix(parts[i], `"`)
	}
	slices.Reverse(parts)
	line := `{"` + strings.Join(parts, `,"`) + "}\n"
	line = strings.Replace(line, `"episode_id"`, `"episode\u005fid"`, 1)
	got := readAll(t, writeFile(t, "x.jsonl", line), ReadOptions{})
	if len(got) != 1 || !reflect.DeepEqual(got[0], e) {
		t.Fatalf("got %+v\nwant %+v\nfrom %s", got, e, line)
	}
}

// TestJSONDuplicateKeys: a repeated field is an error naming it, whether
// it repeats in the canonical order, out of order, escaped, unknown or
// inside a call.
func TestJSONDuplicateKeys(t *testing.T) {
	line := strings.TrimSuffix(string(appendRawJSON(nil, synthRaw(1, 2))), "}\n")
	for _, c := range []struct{ name, line, field string }{
		{"canonical", strings.Replace(line, `"experiment":`, `"model":"x","experiment":`, 1), "model"},
		{"after", line + `,"episode_id":"x"}`, "episode_id"},
		{"escaped", line + `,"episode\u005fid":"x"}`, "episode_id"},
		{"unknown", line + `,"site":"a","site":"b"}`, "site"},
		{"nested", strings.Replace(line, `"seq":0,`, `"seq":0,"seq":0,`, 1), "calls[0].seq"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ReadRaw(writeFile(t, "x.jsonl", c.line+"\n"), ReadOptions{}, func(*RawEpisode) error { return nil })
			var p Problem
			if !errors.As(err, &p) || p.Field != c.field || !strings.Contains(p.Msg, "duplicate field") {
				t.Fatalf("got %v, want a duplicate %s", err, c.field)
			}
		})
	}
	// The line itself, and the same fields in another order, are fine.
	if err := ReadRaw(writeFile(t, "x.jsonl", line+"}\n"), ReadOptions{}, func(*RawEpisode) error { return nil }); err != nil {
		t.Fatal(err)
	}
}
