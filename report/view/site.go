package view

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/outfile"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

//go:embed assets
var assets embed.FS

// Defaults of Options.
const (
	// DefaultMaxEpisodes bounds the episodes a site holds: the list data
	// stays under about 10 MB and the timelines of the kept episodes (about
	// 2.5 kB each) in memory while the site is built.
	DefaultMaxEpisodes = 100_000
	// DefaultChunkSize is how many timelines share one data file: an
	// episode page loads one file of about half a megabyte.
	DefaultChunkSize = 100
)

// Options controls Build.
type Options struct {
	// Format is the ledgers' format ("jsonl", "csv", "parquet"); "" picks
	// it from each file's extension.
	Format string
	// Strict turns plausibility warnings into errors.
	Strict bool
	// Warn receives plausibility warnings; nil discards them.
	Warn func(ledger.Problem)
	// MaxEpisodes bounds the site; beyond it every k-th episode is kept.
	// 0 means DefaultMaxEpisodes.
	MaxEpisodes int
	// ChunkSize is the number of timelines per data file; 0 means
	// DefaultChunkSize.
	ChunkSize int
}

// Site is a built viewer: its page data and the files of the static site.
type Site struct {
	Data  *Data
	files map[string][]byte
}

// Data is what the pages show.
type Data struct {
	Meta Meta `json:"meta"`
	// Dims are the design and categorical outcome fields, dictionary
	// coded: Dims[d].Codes[i] indexes Dims[d].Levels for episode i.
	Dims []Dim `json:"dims"`
	// Nums are numeric fields, one value per episode.
	Nums []Num `json:"nums"`
	// IDs are the episode ids, in ledger order. They are written front
	// coded (IDPrefix[i] bytes shared with IDs[i-1], then IDSuffix[i]):
	// the ids of a design share long prefixes, and this halves the list.
	IDs []string `json:"-"`
	// IDPrefix and IDSuffix are IDs front coded, filled by render.
	IDPrefix []int    `json:"id_prefix"`
	IDSuffix []string `json:"id_suffix"`
	// Flags are the binary fields, one bit each (Flag*).
	Flags []uint16 `json:"flags"` // not []uint8, which JSON writes as base64
	// Details are the timelines, parallel to IDs; nil entries (and a nil
	// slice) when the ledger has no calls.
	Details []*Detail `json:"-"`
}

// Meta describes the site as a whole.
type Meta struct {
	Files    []string `json:"files"`
	Read     int      `json:"read"`     // episodes in the ledgers
	Shown    int      `json:"shown"`    // episodes in the site
	Stride   int      `json:"stride"`   // every Stride-th episode is kept
	Timeline int      `json:"timeline"` // episodes with calls and effects
	Chunk    int      `json:"chunk"`    // timelines per data file
	Notes    []string `json:"notes"`    // said on every page
}

// Dim is one dictionary-coded field.
type Dim struct {
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
	Codes  []int32  `json:"codes"`
	index  map[string]int32
}

// Num is one numeric field.
type Num struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// Flag bits of Data.Flags, in the order of flagNames.
const (
	FlagDuplicated = 1 << iota
	FlagEOS
	FlagOverclaim
	FlagTaskSuccess
	FlagFaultFired
	FlagReportedSuccess
	FlagUncertaintyListed
	FlagReversible
)

// The fields the pages show, by schema column (ledger.EpisodeColumns):
// the choice and order are the pages', the values the schema's.
var (
	// dimNames are the coded fields, in the order the pages show them;
	// "file" comes first when there are several ledgers.
	dimNames = []string{"experiment", "model", "harness", "condition", "contract", "cue", "fault_mode", "template", "service", "focal_write", "write_class", "read_path", "recovery", "task", "platform"}
	// numNames are the numeric fields.
	// (seed is left out: an int64 seed does not survive a JavaScript number.)
	numNames = []string{"weight", "delay_s", "expected_commits", "focal_commits", "tool_calls", "agent_time_s", "instance", "focal_index"}
	// flagNames are the binary fields, bit i of a flag being flagNames[i].
	flagNames = []string{"duplicated", "eos", "overclaim", "task_success", "fault_fired", "reported_success", "uncertainty_listed", "reversible"}

	dimCols  = schemaColumns(dimNames, ledger.KindString)
	numCols  = schemaColumns(numNames, ledger.KindInt, ledger.KindFloat)
	flagCols = schemaColumns(flagNames, ledger.KindBool)
)

// schemaColumns returns the indices in ledger.EpisodeColumns of the named
// columns, which must be of one of kinds.
func schemaColumns(names []string, kinds ...ledger.Kind) []int {
	idx := make([]int, len(names))
	for j, n := range names {
		i := slices.IndexFunc(ledger.EpisodeColumns, func(c ledger.Column) bool { return c.Name == n })
		if i < 0 || !slices.Contains(kinds, ledger.EpisodeColumns[i].Kind) {
			panic("view: " + n + " is not a schema column of kind " + fmt.Sprint(kinds))
		}
		idx[j] = i
	}
	return idx
}

// number returns column i of e as a page shows it.
func number(e *ledger.Episode, i int) float64 {
	v, _ := e.Column(i).Float()
	if ledger.EpisodeColumns[i].Name == "agent_time_s" {
		// To the millisecond: the page shows no more, and the full
		// precision of every value would be a tenth of the list's bytes.
		v = math.Round(v*1000) / 1000
	}
	return v
}

// Detail is one episode's timeline: sandbox.TraceOf's, in page form.
type Detail struct {
	Index   int                 `json:"i"`
	Calls   []CallView          `json:"calls"`
	Effects []EffectView        `json:"effects"`
	Fault   FaultView           `json:"fault"`
	Report  *ledger.FinalReport `json:"report"` // nil when the ledger does not carry it (Parquet)
	Reason  string              `json:"reason"`
	Commits int                 `json:"commits"`
}

// CallView is a traced call.
type CallView struct {
	Seq      int64   `json:"seq"`
	T        float64 `json:"t"`
	Tool     string  `json:"tool"`
	Args     string  `json:"args"`
	Key      string  `json:"key"`
	Outcome  string  `json:"outcome"`
	Latency  float64 `json:"lat"`
	Role     string  `json:"role"`
	Observed string  `json:"observed"`
	Faulted  bool    `json:"faulted"`
}

// EffectView is a traced effect.
type EffectView struct {
	Seq       int64   `json:"seq"`
	Service   string  `json:"service"`
	Tool      string  `json:"tool"`
	Resource  string  `json:"resource"`
	Key       string  `json:"key"`
	Attempt   int64   `json:"attempt"`
	Issued    float64 `json:"issued"`
	Committed float64 `json:"committed"`
	Source    string  `json:"source"`
	Absorbed  bool    `json:"absorbed"`
	Focal     bool    `json:"focal"`
	Origin    string  `json:"origin"`
	Repeat    bool    `json:"repeat"`
}

// FaultView is the fault and where it struck.
type FaultView struct {
	Mode  string  `json:"mode"`
	Delay float64 `json:"delay"`
	Seq   int64   `json:"seq"`
	Text  string  `json:"text"`
}

// DetailOf converts a trace to its page form.
func DetailOf(tr *sandbox.Trace, report *ledger.FinalReport) *Detail {
	d := &Detail{
		Calls:   make([]CallView, len(tr.Calls)),
		Effects: make([]EffectView, len(tr.Effects)),
		Fault:   FaultView{Mode: tr.Fault.Mode, Delay: tr.Fault.DelayS, Seq: tr.Fault.Seq, Text: tr.Fault.Text},
		Report:  report,
		Reason:  tr.Reason,
		Commits: tr.Commits,
	}
	for i, c := range tr.Calls {
		d.Calls[i] = CallView{Seq: c.Seq, T: c.TS, Tool: c.Tool, Args: c.Args, Key: c.IdempotencyKey, Outcome: c.Outcome,
			Latency: c.LatencyS, Role: c.Role, Observed: c.Observed, Faulted: c.Faulted}
	}
	for i, e := range tr.Effects {
		d.Effects[i] = EffectView{Seq: e.Seq, Service: e.Service, Tool: e.Tool, Resource: e.ResourceID, Key: e.IdempotencyKey,
			Attempt: e.Attempt, Issued: e.IssuedAtS, Committed: e.CommittedAtS, Source: e.Source, Absorbed: e.Absorbed,
			Focal: e.Focal, Origin: e.Origin, Repeat: e.Repeat}
	}
	return d
}

// kept is one episode the site holds while the ledgers are read.
type kept struct {
	ord    int // position among all episodes read
	file   int
	ep     ledger.Episode
	detail *Detail
}

// builder reads ledgers into a bounded, deterministically thinned set.
type builder struct {
	max    int
	stride int
	read   int
	eps    []kept
}

// add offers the next episode; it returns whether it was kept (the caller
// then attaches its detail through the returned pointer).
func (b *builder) add(file int, e *ledger.Episode) *kept {
	ord := b.read
	b.read++
	if ord%b.stride != 0 {
		return nil
	}
	b.eps = append(b.eps, kept{ord: ord, file: file, ep: *e})
	if len(b.eps) > b.max {
		// Double the stride: keep every other kept episode. The result is
		// every k-th episode of the input whatever its length.
		b.stride *= 2
		n := 0
		for _, k := range b.eps {
			if k.ord%b.stride == 0 {
				b.eps[n] = k
				n++
			}
		}
		clear(b.eps[n:])
		b.eps = b.eps[:n]
		if ord%b.stride != 0 {
			return nil
		}
	}
	return &b.eps[len(b.eps)-1]
}

// Build reads the ledgers at paths and builds the site. A malformed ledger
// fails with the reader's error (file, line, field); nothing is written.
func Build(paths []string, opt Options) (*Site, error) {
	if len(paths) == 0 {
		return nil, errors.New("view: no ledger")
	}
	b := &builder{max: opt.MaxEpisodes, stride: 1}
	if b.max <= 0 {
		b.max = DefaultMaxEpisodes
	}
	chunk := opt.ChunkSize
	if chunk <= 0 {
		chunk = DefaultChunkSize
	}
	ropt := ledger.ReadOptions{Format: opt.Format, Strict: opt.Strict, Warn: opt.Warn, Grader: sandbox.Grade}
	var notes []string
	for fi, p := range paths {
		format := opt.Format
		if format == "" {
			format = formatOf(p)
		}
		var err error
		if format == "parquet" && !ledger.IsMultiInput(p) {
			err = readParquet(b, fi, p, ropt)
		} else {
			err = ledger.ReadGraded(p, ropt, func(e *ledger.Episode, raw *ledger.RawEpisode) error {
				k := b.add(fi, e)
				if k == nil || raw == nil {
					return nil
				}
				tr, err := sandbox.TraceOf(raw, e)
				if err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				k.detail = DetailOf(&tr, raw.FinalReport)
				return nil
			})
			if err == nil && ledger.IsMultiInput(p) {
				err = traceDataset(b, fi, p, ropt)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	d := &Data{Meta: Meta{Files: paths, Read: b.read, Shown: len(b.eps), Stride: b.stride, Chunk: chunk}}
	if b.stride > 1 {
		notes = append(notes, fmt.Sprintf("A sample: every %d-th of the %d episodes read (the site holds at most %d); counts and rates are the sample's.", b.stride, b.read, b.max))
	}
	names := dimNames
	if len(paths) > 1 {
		names = append([]string{"file"}, names...)
	}
	for _, n := range names {
		d.Dims = append(d.Dims, Dim{Name: n, Codes: make([]int32, 0, len(b.eps)), index: map[string]int32{}})
	}
	for _, n := range numNames {
		d.Nums = append(d.Nums, Num{Name: n, Values: make([]float64, 0, len(b.eps))})
	}
	d.IDs = make([]string, 0, len(b.eps))
	d.Flags = make([]uint16, 0, len(b.eps))
	d.Details = make([]*Detail, 0, len(b.eps))
	cols := dimCols
	if len(paths) > 1 {
		cols = append([]int{-1}, cols...)
	}
	for i := range b.eps {
		k := &b.eps[i]
		e := &k.ep
		d.IDs = append(d.IDs, e.EpisodeID)
		for j := range d.Dims {
			dim := &d.Dims[j]
			var v string
			if cols[j] < 0 { // "file", not an episode field: which ledger it came from
				v = paths[k.file]
			} else {
				v = e.Column(cols[j]).Str
			}
			c, ok := dim.index[v]
			if !ok {
				c = int32(len(dim.Levels))
				dim.index[v] = c
				dim.Levels = append(dim.Levels, v)
			}
			dim.Codes = append(dim.Codes, c)
		}
		for j := range d.Nums {
			d.Nums[j].Values = append(d.Nums[j].Values, number(e, numCols[j]))
		}
		var f uint16
		for bit, c := range flagCols {
			if e.Column(c).Bool {
				f |= 1 << bit
			}
		}
		d.Flags = append(d.Flags, f)
		if k.detail != nil {
			k.detail.Index = i
			d.Meta.Timeline++
		}
		d.Details = append(d.Details, k.detail)
	}
	switch {
	case d.Meta.Timeline == 0:
		notes = append(notes, "These ledgers are episode tables without calls or effects: the list and the grades only, no timelines. Open a raw JSONL ledger, or a Parquet export with its .calls.parquet and .effects.parquet beside it, to see them.")
	case d.Meta.Timeline < d.Meta.Shown:
		notes = append(notes, fmt.Sprintf("%d of the %d episodes have no calls or effects in these ledgers: their pages show the grades only.", d.Meta.Shown-d.Meta.Timeline, d.Meta.Shown))
	}
	d.Meta.Notes = notes
	if d.Meta.Notes == nil {
		d.Meta.Notes = []string{}
	}
	s := &Site{Data: d}
	if err := s.render(); err != nil {
		return nil, err
	}
	return s, nil
}

// formatOf guesses a ledger's format from its name as the readers do.
func formatOf(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".parquet":
		return "parquet"
	case ".csv":
		return "csv"
	}
	return "jsonl"
}

// readParquet reads a Parquet episode table and, when they are beside it,
// its calls and effects tables, and traces every kept episode.
func readParquet(b *builder, fi int, p string, ropt ledger.ReadOptions) error {
	if err := ledger.ReadEpisodes(p, ropt, func(e *ledger.Episode) error {
		b.add(fi, e)
		return nil
	}); err != nil {
		return err
	}
	callsPath, effectsPath := ledger.SiblingPaths(p)
	if _, err := os.Stat(callsPath); err != nil {
		return nil // an episode table alone: grades only
	}
	if _, err := os.Stat(effectsPath); err != nil {
		effectsPath = ""
	}
	return trace(b, fi, nil, callsPath, effectsPath, ropt)
}

// traceDataset traces the kept episodes of the directory or glob p (the
// fi-th ledger, already read) whose files have calls and effects tables
// in the sibling datasets of a partitioned raw export (DIR.calls/,
// DIR.effects/, ledger.PartitionSiblings), file by file.
func traceDataset(b *builder, fi int, p string, ropt ledger.ReadOptions) error {
	srcs, err := ledger.ExpandInput(p)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		callsPath, effectsPath := s.Siblings()
		if callsPath == "" {
			continue
		}
		// The episodes of this file: a sibling table belongs to it alone.
		ids := map[string]bool{}
		o := ropt
		o.Columns = []string{"episode_id"}
		if err := ledger.ReadEpisodes(s.Path, o, func(e *ledger.Episode) error {
			ids[e.EpisodeID] = true
			return nil
		}); err != nil {
			return err
		}
		if err := trace(b, fi, ids, callsPath, effectsPath, ropt); err != nil {
			return err
		}
	}
	return nil
}

// trace reads a calls table and an effects table ("" for none) into the
// kept episodes of the fi-th ledger (those in only, or all of them for
// nil) and traces them.
func trace(b *builder, fi int, only map[string]bool, callsPath, effectsPath string, ropt ledger.ReadOptions) error {
	// The file's kept episodes (thinning may have dropped some since).
	raws := map[string]*ledger.RawEpisode{}
	for i := range b.eps {
		if k := &b.eps[i]; k.file == fi && k.detail == nil && (only == nil || only[k.ep.EpisodeID]) {
			raws[k.ep.EpisodeID] = &ledger.RawEpisode{Episode: k.ep}
		}
	}
	if len(raws) == 0 {
		return nil
	}
	if err := ledger.ReadCalls(callsPath, ropt, func(c *ledger.Call) error {
		if r := raws[c.EpisodeID]; r != nil {
			r.Calls = append(r.Calls, *c)
		}
		return nil
	}); err != nil {
		return err
	}
	if effectsPath != "" {
		if err := ledger.ReadEffects(effectsPath, ropt, func(x *ledger.Effect) error {
			if r := raws[x.EpisodeID]; r != nil {
				r.Effects = append(r.Effects, *x)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for i := range b.eps {
		k := &b.eps[i]
		r := raws[k.ep.EpisodeID]
		if k.file != fi || r == nil || k.detail != nil {
			continue
		}
		// Calls and effects in seq order, as a raw line holds them.
		slices.SortStableFunc(r.Calls, func(a, b ledger.Call) int { return cmpInt(a.Seq, b.Seq) })
		tr, err := sandbox.TraceOf(r, &k.ep)
		if err != nil {
			return fmt.Errorf("%s: %w", callsPath, err)
		}
		k.detail = DetailOf(&tr, nil)
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// render lays out the site's files: the pages and assets, the list data
// and the timelines in chunks.
func (s *Site) render() error {
	s.files = map[string][]byte{}
	err := fs.WalkDir(assets, "assets", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		s.files[strings.TrimPrefix(p, "assets/")] = b
		return nil
	})
	if err != nil {
		return fmt.Errorf("view: assets: %w", err)
	}
	d := s.Data
	for _, v := range d.Nums {
		for _, x := range v.Values {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("view: field %s: not a finite number", v.Name)
			}
		}
	}
	d.IDPrefix = make([]int, len(d.IDs))
	d.IDSuffix = make([]string, len(d.IDs))
	prev := ""
	for i, id := range d.IDs {
		n := 0
		for n < len(id) && n < len(prev) && id[n] == prev[n] {
			n++
		}
		// Cut at a rune boundary, so that both halves are valid UTF-8 and
		// JavaScript's UTF-16 offsets agree with the byte count: cut only
		// within the ASCII prefix.
		for k := 0; k < n; k++ {
			if id[k] >= 0x80 {
				n = k
				break
			}
		}
		d.IDPrefix[i], d.IDSuffix[i] = n, id[n:]
		prev = id
	}
	js, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("view: list data: %w", err)
	}
	// JSON.parse of a string literal parses faster than the same data as
	// a JavaScript object literal (V8's advice for large data). json.Marshal
	// escapes line terminators, so only \ and ' need escaping here.
	var buf bytes.Buffer
	buf.Grow(len(js) + 64)
	buf.WriteString("window.LIMBO_DATA = JSON.parse('")
	for _, c := range js {
		if c == '\\' || c == '\'' {
			buf.WriteByte('\\')
		}
		buf.WriteByte(c)
	}
	buf.WriteString("');\n")
	s.files["data/list.js"] = buf.Bytes()
	for c := 0; c*d.Meta.Chunk < len(d.Details); c++ {
		part := d.Details[c*d.Meta.Chunk : min((c+1)*d.Meta.Chunk, len(d.Details))]
		if !slices.ContainsFunc(part, func(x *Detail) bool { return x != nil }) {
			continue
		}
		var buf bytes.Buffer
		buf.WriteString("LIMBO_CHUNK(" + strconv.Itoa(c) + ", ")
		if err := json.NewEncoder(&buf).Encode(part); err != nil {
			return fmt.Errorf("view: timelines: %w", err)
		}
		buf.Truncate(buf.Len() - 1) // the encoder's newline
		buf.WriteString(");\n")
		s.files[ChunkFile(c)] = buf.Bytes()
	}
	s.files[markerFile] = []byte("limbo-analyze view site\n")
	return nil
}

// ChunkFile is the data file holding the timelines of chunk c.
func ChunkFile(c int) string { return fmt.Sprintf("data/chunk-%05d.js", c) }

// markerFile marks a directory as a viewer site, so that Write replaces
// only its own output.
const markerFile = ".limbo-view"

// Files returns the site's file names, sorted.
func (s *Site) Files() []string {
	names := make([]string, 0, len(s.files))
	for n := range s.files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// File returns the content of one file of the site.
func (s *Site) File(name string) ([]byte, bool) {
	b, ok := s.files[name]
	return b, ok
}

// Size returns the bytes of the files a browser loads to show the list
// (the pages, assets and list data) and of all files.
func (s *Site) Size() (list, total int) {
	for n, b := range s.files {
		total += len(b)
		if !strings.HasPrefix(n, "data/chunk-") && n != markerFile {
			list += len(b)
		}
	}
	return list, total
}

// Write writes the site to dir atomically (outfile.CreateOwnedDir: built
// beside it, synced, swapped into place), with a manifest of its files.
// An existing dir is replaced only if it holds nothing but the files an
// earlier site wrote (its manifest; without one, names a site writes);
// otherwise Write refuses it with an *outfile.ForeignError naming what it
// holds. Nothing is half-written on error.
func (s *Site) Write(dir string) (err error) {
	dir = filepath.Clean(dir)
	d, err := outfile.CreateOwnedDir(dir, owner)
	if err != nil {
		return err
	}
	defer d.Abort() // no-op after Commit
	for _, name := range s.Files() {
		p := filepath.Join(d.Path(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err := os.WriteFile(p, s.files[name], 0o644); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	return d.Commit()
}

// owner is a site directory's owner (Write).
var owner = outfile.Owner{Tool: "the viewer", Legacy: siteFile}

// CheckOut returns an *outfile.ForeignError when dir holds a file a site
// did not write (nil when it holds none or does not exist): Write would
// refuse it.
func CheckOut(dir string) error { return outfile.CheckOwned(dir, owner) }

// siteFile reports whether rel is the name of a file a site writes: its
// marker, an asset, the list data or a chunk of timelines.
func siteFile(rel string) bool {
	if rel == markerFile || rel == "data/list.js" {
		return true
	}
	if n, ok := strings.CutPrefix(rel, "data/chunk-"); ok {
		n, ok = strings.CutSuffix(n, ".js")
		return ok && n != "" && strings.Trim(n, "0123456789") == ""
	}
	_, err := fs.Stat(assets, "assets/"+rel)
	return err == nil && !strings.Contains(rel, "..")
}

// contentTypes are the MIME types of the site's files.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
}

// contentType returns the MIME type of a site file.
func contentType(name string) string {
	if t, ok := contentTypes[path.Ext(name)]; ok {
		return t
	}
	return "application/octet-stream"
}
