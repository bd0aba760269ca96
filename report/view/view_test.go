package view_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report/view"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// worlds returns raw episodes run in the sandbox: Figure 1's four scripted
// worlds and every step-th episode of the paper's design (seed 1).
func worlds(t testing.TB, step int) []*ledger.RawEpisode {
	t.Helper()
	var out []*ledger.RawEpisode
	var fw *sandbox.FocalWrite
	for _, f := range sandbox.FocalWrites() {
		if f.Tool == sandbox.Figure1Tool {
			fw = &f
			break
		}
	}
	task, err := sandbox.NewTask(fw.Template, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, keyed := range []bool{false, true} {
		for _, fault := range []string{ledger.FaultTimeoutPre, ledger.FaultTimeoutLate} {
			raw, err := sandbox.Figure1Episode(task, fw.FocalIndex, fault, keyed)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, raw)
		}
	}
	plan, err := design.Compile(design.Paper())
	if err != nil {
		t.Fatal(err)
	}
	sim := design.NewSimulator(plan, agent.DefaultProfiles(), 1)
	for i := 0; i < plan.Len(); i += step {
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// writeJSONL writes raw episodes as a raw JSONL ledger.
func writeJSONL(t testing.TB, path string, raws []*ledger.RawEpisode) {
	t.Helper()
	var b []byte
	for _, r := range raws {
		b = ledger.AppendRaw(b, r)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chunkDetails decodes the timelines as the page receives them: the
// JSON argument of every LIMBO_CHUNK(c, [...]) data file of the site.
func chunkDetails(t *testing.T, s *view.Site) []*view.Detail {
	t.Helper()
	var all []*view.Detail
	for c := 0; ; c++ {
		b, ok := s.File(view.ChunkFile(c))
		if !ok {
			break
		}
		i := bytes.IndexByte(b, '[')
		j := bytes.LastIndexByte(b, ']')
		if !bytes.HasPrefix(b, []byte("LIMBO_CHUNK(")) || i < 0 || j < i {
			t.Fatalf("%s: not a chunk: %.60s", view.ChunkFile(c), b)
		}
		var part []*view.Detail
		if err := json.Unmarshal(b[i:j+1], &part); err != nil {
			t.Fatalf("%s: %v", view.ChunkFile(c), err)
		}
		all = append(all, part...)
	}
	return all
}

// TestTimelineIsTheSandboxTrace checks the page data of each episode
// against the world it came from: the calls and effects the sandbox
// recorded, in order, with the trace's roles, origins and verdict — both
// in memory and as decoded from the data files the page loads.
func TestTimelineIsTheSandboxTrace(t *testing.T) {
	step := 97
	if testing.Short() {
		step = 997
	}
	raws := worlds(t, step)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	writeJSONL(t, path, raws)
	site, err := view.Build([]string{path}, view.Options{ChunkSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	d := site.Data
	if d.Meta.Shown != len(raws) || d.Meta.Timeline != len(raws) || len(d.Details) != len(raws) {
		t.Fatalf("site has %d episodes, %d timelines; want %d", d.Meta.Shown, d.Meta.Timeline, len(raws))
	}
	paged := chunkDetails(t, site)
	if len(paged) != len(raws) {
		t.Fatalf("the data files hold %d timelines, want %d", len(paged), len(raws))
	}
	for i, raw := range raws {
		got := d.Details[i]
		if d.IDs[i] != raw.EpisodeID || got.Index != i {
			t.Fatalf("episode %d: id %q index %d, want %q", i, d.IDs[i], got.Index, raw.EpisodeID)
		}
		// Against the ledger of the world, field by field.
		if len(got.Calls) != len(raw.Calls) || len(got.Effects) != len(raw.Effects) {
			t.Fatalf("%s: %d calls, %d effects; the world recorded %d, %d", raw.EpisodeID, len(got.Calls), len(got.Effects), len(raw.Calls), len(raw.Effects))
		}
		for k, c := range raw.Calls {
			g := got.Calls[k]
			if g.Seq != c.Seq || g.T != c.TS || g.Tool != c.Tool || g.Args != c.Args || g.Key != c.IdempotencyKey || g.Outcome != c.Outcome || g.Latency != c.LatencyS {
				t.Errorf("%s call %d: page %+v, world %+v", raw.EpisodeID, k, g, c)
			}
		}
		for k, e := range raw.Effects {
			g := got.Effects[k]
			if g.Seq != e.Seq || g.Tool != e.Tool || g.Resource != e.ResourceID || g.Issued != e.IssuedAtS || g.Committed != e.CommittedAtS || g.Source != e.Source || g.Absorbed != e.Absorbed || g.Focal != e.Focal {
				t.Errorf("%s effect %d: page %+v, world %+v", raw.EpisodeID, k, g, e)
			}
		}
		// Against the sandbox's trace of the same world.
		ep, err := sandbox.Grade(raw)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := sandbox.TraceOf(raw, &ep)
		if err != nil {
			t.Fatal(err)
		}
		want := view.DetailOf(&tr, raw.FinalReport)
		want.Index = i
		for _, d := range []*view.Detail{got, paged[i], want} {
			normReport(d)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: page timeline differs from the sandbox trace:\n got %+v\nwant %+v", raw.EpisodeID, got, want)
		}
		if !reflect.DeepEqual(paged[i], want) {
			t.Fatalf("%s: the data file's timeline differs from the sandbox trace:\n got %+v\nwant %+v", raw.EpisodeID, paged[i], want)
		}
		if fl := d.Flags[i]; (fl&view.FlagDuplicated != 0) != ep.Duplicated || (fl&view.FlagEOS != 0) != ep.EOS || (fl&view.FlagOverclaim != 0) != ep.Overclaim {
			t.Errorf("%s: flags %b disagree with the grade %+v", raw.EpisodeID, fl, ep)
		}
	}
	// Figure 1's fresh re-issue in W_late, as the page says it.
	if r := d.Details[1].Reason; !strings.HasPrefix(r, "two charges for one logical charge: call 4 and call 1 (late commit)") {
		t.Errorf("W_late fresh re-issue: reason %q", r)
	}
}

// normReport makes an empty list of uncertainties nil: JSON does not
// tell an empty list from a missing one.
func normReport(d *view.Detail) {
	if d.Report != nil && len(d.Report.Uncertainties) == 0 {
		r := *d.Report
		r.Uncertainties = nil
		d.Report = &r
	}
}

// TestParquetExport checks that a Parquet export with its calls and
// effects tables gives the timelines of the raw ledger (less the final
// report's text, which the export does not carry), and that the episode
// table alone gives the grades only and says so.
func TestParquetExport(t *testing.T) {
	raws := worlds(t, 1499)
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "run.jsonl")
	writeJSONL(t, jsonl, raws)
	pq := filepath.Join(dir, "run.parquet")
	ew, err := ledger.CreateEpisodes(pq, "parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	callsPath, effectsPath := ledger.SiblingPaths(pq)
	cw, err := ledger.CreateCalls(callsPath)
	if err != nil {
		t.Fatal(err)
	}
	xw, err := ledger.CreateEffects(effectsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raws {
		ep, err := sandbox.Grade(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := ew.Write(&ep); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Calls {
			c.EpisodeID = r.EpisodeID
			if err := cw.Write(&c); err != nil {
				t.Fatal(err)
			}
		}
		for _, x := range r.Effects {
			x.EpisodeID = r.EpisodeID
			if err := xw.Write(&x); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []interface{ Close() error }{ew, cw, xw} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fromJSONL, err := view.Build([]string{jsonl}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fromPQ, err := view.Build([]string{pq}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fromPQ.Data.Meta.Timeline != len(raws) {
		t.Fatalf("Parquet: %d timelines, want %d", fromPQ.Data.Meta.Timeline, len(raws))
	}
	for i, want := range fromJSONL.Data.Details {
		got := *fromPQ.Data.Details[i]
		w := *want
		w.Report = nil // the export does not carry the final report's text
		w.Reason = strings.Replace(w.Reason, "reported completed anyway", "reported success anyway", 1)
		if !reflect.DeepEqual(&got, &w) {
			t.Errorf("%s: Parquet timeline differs from the raw ledger's:\n got %+v\nwant %+v", raws[i].EpisodeID, got, w)
		}
	}
	if !reflect.DeepEqual(fromPQ.Data.Flags, fromJSONL.Data.Flags) || !reflect.DeepEqual(fromPQ.Data.IDs, fromJSONL.Data.IDs) {
		t.Error("Parquet and JSONL lists differ")
	}

	// A malformed calls table fails naming its file and row.
	cw, err = ledger.CreateCalls(callsPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range raws[0].Calls {
		c.EpisodeID = raws[0].EpisodeID
		if i == 1 {
			c.Outcome = "fine"
		}
		if err := cw.Write(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	// Parquet rows are named by their 0-based index.
	if _, err := view.Build([]string{pq}, view.Options{}); err == nil || !strings.Contains(err.Error(), callsPath+": row 1") || !strings.Contains(err.Error(), "outcome") {
		t.Errorf("malformed calls table: %v, want an error naming %s: row 1 and outcome", err, callsPath)
	}

	// The episode table alone.
	alone := filepath.Join(t.TempDir(), "alone.parquet")
	b, _ := os.ReadFile(pq)
	os.WriteFile(alone, b, 0o644)
	s, err := view.Build([]string{alone}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Data.Meta.Timeline != 0 || len(s.Data.Meta.Notes) != 1 || !strings.Contains(s.Data.Meta.Notes[0], "grades only") {
		t.Errorf("episode table alone: %d timelines, notes %q", s.Data.Meta.Timeline, s.Data.Meta.Notes)
	}
	if _, ok := s.File(view.ChunkFile(0)); ok {
		t.Error("episode table alone: a timeline data file was written")
	}
}

// TestSample checks the bound: beyond MaxEpisodes the site keeps every
// k-th episode (k a power of two), and says so.
func TestSample(t *testing.T) {
	cases := []struct {
		n, max, stride int
	}{
		{10, 10, 1}, {11, 10, 2}, {40, 10, 4}, {41, 10, 8}, {7, 1, 8},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "s.csv")
		var b strings.Builder
		b.WriteString("episode_id,experiment,model,harness,contract,condition,cue,service,template,instance,task,focal_write,focal_index,platform,pair_key,write_class,read_path,reversible,fault_mode,fault_fired,delay_s,weight,seed,expected_commits,focal_commits,duplicated,task_success,eos,tool_calls,agent_time_s,reported_success,uncertainty_listed,overclaim,recovery\n")
		for i := range c.n {
			b.WriteString(fmt.Sprintf("e%03d", i) + ",E1,m,minimal,native,vanilla,default,billing,T03,0,T03#0,billing_create_charge,0,,k" + strconv.Itoa(i) + ",keyed,strong,true,none,true,0,1,1,1,1,false,true,true,1,2.5,true,false,false,none\n")
		}
		os.WriteFile(path, []byte(b.String()), 0o644)
		s, err := view.Build([]string{path}, view.Options{MaxEpisodes: c.max})
		if err != nil {
			t.Fatal(err)
		}
		m := s.Data.Meta
		var want []string
		for i := 0; i < c.n; i += c.stride {
			want = append(want, fmt.Sprintf("e%03d", i))
		}
		if m.Read != c.n || m.Stride != c.stride || !reflect.DeepEqual(s.Data.IDs, want) {
			t.Errorf("n=%d max=%d: read %d stride %d ids %v; want stride %d ids %v", c.n, c.max, m.Read, m.Stride, s.Data.IDs, c.stride, want)
		}
		sampled := len(m.Notes) > 0 && strings.Contains(m.Notes[0], "A sample")
		if sampled != (c.stride > 1) {
			t.Errorf("n=%d max=%d: notes %q", c.n, c.max, m.Notes)
		}
	}
}

// TestWrite checks the atomic write: a new directory, the replacement of
// an earlier site, the refusal to overwrite anything else, and the list
// data's front-coded ids.
func TestWrite(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")
	s, err := view.Build([]string{src}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	for range 2 { // the second write replaces the first
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range s.Files() {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		want, _ := s.File(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not written as built (%v)", name, err)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("temporary directories left beside the site: %v", ents)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if err := s.Write(other); err == nil || !strings.Contains(err.Error(), "holds notes.txt, which the viewer did not write") {
		t.Errorf("writing over a foreign directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(b) != "mine" {
		t.Error("the foreign directory was changed")
	}
	// The list data decodes to the ids (front coding reversed).
	b, _ := s.File("data/list.js")
	var d struct {
		Prefix []int    `json:"id_prefix"`
		Suffix []string `json:"id_suffix"`
	}
	js := strings.TrimSuffix(strings.TrimPrefix(string(b), "window.LIMBO_DATA = JSON.parse('"), "');\n")
	js = strings.NewReplacer(`\\`, `\`, `\'`, `'`).Replace(js)
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	prev := ""
	for i := range d.Suffix {
		id := prev[:d.Prefix[i]] + d.Suffix[i]
		if id != s.Data.IDs[i] {
			t.Errorf("id %d decodes to %q, want %q", i, id, s.Data.IDs[i])
		}
		prev = id
	}
}

// TestMalformed checks that a malformed ledger fails with the reader's
// error naming file, line and field.
func TestMalformed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	cases := []struct {
		name, line3, want string
	}{
		{"not JSON", "{oops\n", ":3"},
		{"bad fault mode", strings.Replace(lines[2], `"fault_mode":"`, `"fault_mode":"x`, 1), "fault_mode"},
		{"bad effect source", strings.Replace(lines[2], `"source":"agent"`, `"source":"elsewhere"`, 1), "source"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		os.WriteFile(path, []byte(lines[0]+lines[1]+c.line3+strings.Join(lines[3:], "")), 0o644)
		_, err := view.Build([]string{path}, view.Options{})
		if err == nil || !strings.Contains(err.Error(), path+":3") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s:3 and %s", c.name, err, path, c.want)
		}
	}
}

// TestHandler checks that --serve serves the files Write writes.
func TestHandler(t *testing.T) {
	s, err := view.Build([]string{filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, c := range []struct {
		path, ctype string
		code        int
		file        string
	}{
		{"/", "text/html; charset=utf-8", 200, "index.html"},
		{"/data/list.js", "text/javascript; charset=utf-8", 200, "data/list.js"},
		{"/" + view.ChunkFile(0), "text/javascript; charset=utf-8", 200, view.ChunkFile(0)},
		{"/.limbo-view", "", 404, ""},
		{"/../site.go", "", 404, ""},
	} {
		res, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != c.code {
			t.Errorf("%s: status %d, want %d", c.path, res.StatusCode, c.code)
			continue
		}
		if c.file != "" {
			want, _ := s.File(c.file)
			if res.Header.Get("Content-Type") != c.ctype || !bytes.Equal(body.Bytes(), want) {
				t.Errorf("%s: %s, %d bytes; want %s, %d", c.path, res.Header.Get("Content-Type"), body.Len(), c.ctype, len(want))
			}
		}
	}
}

// TestServeAddr checks that --serve stays on the loopback interface
// unless told otherwise.
func TestServeAddr(t *testing.T) {
	for _, c := range []struct {
		in     string
		remote bool
		want   string
		ok     bool
	}{
		{":8080", false, "127.0.0.1:8080", true},
		{"127.0.0.1:0", false, "127.0.0.1:0", true},
		{"localhost:9000", false, "localhost:9000", true},
		{"[::1]:9000", false, "[::1]:9000", true},
		{"0.0.0.0:8080", false, "", false},
		{"0.0.0.0:8080", true, "0.0.0.0:8080", true},
		{"8080", false, "", false},
	} {
		got, err := view.ServeAddr(c.in, c.remote)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ServeAddr(%q, %v) = %q, %v; want %q, ok %v", c.in, c.remote, got, err, c.want, c.ok)
		}
	}
}

// BenchmarkBuildPaper builds the site of the paper's ledger (25,930
// episodes, simulated once) and reports its weight: the bytes a browser
// loads to show the list, and of the whole site. The browser's time to
// open, filter and show an episode is measured by scripts/browser/check.sh.
func BenchmarkBuildPaper(b *testing.B) {
	path := filepath.Join(b.TempDir(), "paper.jsonl")
	writeJSONL(b, path, worlds(b, 1))
	b.ResetTimer()
	var list, total int
	for b.Loop() {
		s, err := view.Build([]string{path}, view.Options{})
		if err != nil {
			b.Fatal(err)
		}
		list, total = s.Size()
	}
	b.ReportMetric(float64(list)/1e6, "list-MB")
	b.ReportMetric(float64(total)/1e6, "site-MB")
}

// TestSeveralFiles builds a site from two ledgers: the "file" dimension
// names each episode's ledger (it used to panic, "unknown coded field
// file", on any view of more than one file).
func TestSeveralFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "ledger")
	paths := []string{filepath.Join(dir, "sample.jsonl"), filepath.Join(dir, "sample.csv")}
	s, err := view.Build(paths, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Data
	if len(d.Dims) == 0 || d.Dims[0].Name != "file" {
		t.Fatalf("first dimension %+v, want file", d.Dims[:1])
	}
	file := d.Dims[0]
	if !reflect.DeepEqual(file.Levels, paths) {
		t.Errorf("file levels %q, want %q", file.Levels, paths)
	}
	counts := make([]int, len(file.Levels))
	for _, c := range file.Codes {
		counts[c]++
	}
	if counts[0] != 36 || counts[1] != 36 {
		t.Errorf("episodes per file %v, want [36 36]", counts)
	}
	// The other dimensions keep their values: model is the episode's.
	for j, dim := range d.Dims {
		if dim.Name == "model" && dim.Levels[dim.Codes[0]] != "gpt-4.1" {
			t.Errorf("dimension %d (model): first episode %q, want gpt-4.1", j, dim.Levels[dim.Codes[0]])
		}
	}
}

// TestPartitionedExport: a raw ledger exported partitioned (export
// --partition-by) keeps its calls and effects in DIR.calls/ and
// DIR.effects/; viewing DIR gives every episode's timeline, the raw
// ledger's less the final report's text, as for a Parquet file.
func TestPartitionedExport(t *testing.T) {
	raws := worlds(t, 1499)
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "run.jsonl")
	writeJSONL(t, jsonl, raws)
	ds := filepath.Join(dir, "run-ds")
	st, err := ledger.Export(jsonl, ds, ledger.ExportOptions{
		Read:        ledger.ReadOptions{Grader: sandbox.Grade},
		PartitionBy: []string{"experiment", "fault_mode"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Nested || st.Partitions < 2 {
		t.Fatalf("export: %+v, want calls and effects in several partitions", st)
	}
	fromJSONL, err := view.Build([]string{jsonl}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]view.Detail{}
	for i, d := range fromJSONL.Data.Details {
		w := *d
		w.Index = 0
		w.Report = nil // the export does not carry the final report's text
		w.Reason = strings.Replace(w.Reason, "reported completed anyway", "reported success anyway", 1)
		want[fromJSONL.Data.IDs[i]] = w
	}
	for _, in := range []string{ds, ds + "/experiment=*", ds + "/*/*/*.parquet", ds + "/experiment=E1/*"} {
		s, err := view.Build([]string{in}, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Data.Meta.Timeline != s.Data.Meta.Shown || (in != ds+"/experiment=E1/*" && s.Data.Meta.Shown != len(raws)) || s.Data.Meta.Shown == 0 {
			t.Fatalf("%s: %d episodes, %d timelines; want %d of each", in, s.Data.Meta.Shown, s.Data.Meta.Timeline, len(raws))
		}
		for i, d := range s.Data.Details {
			got := *d
			got.Index = 0
			if w := want[s.Data.IDs[i]]; !reflect.DeepEqual(got, w) {
				t.Errorf("%s: %s: timeline differs from the raw ledger's:\n got %+v\nwant %+v", in, s.Data.IDs[i], got, w)
			}
		}
	}
}
