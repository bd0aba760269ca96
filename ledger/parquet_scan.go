package ledger

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// ErrRowScan is returned by ScanParquet when a file is not one it scans by
// columns (not a Parquet episode table, a column of another type, a null,
// or a value the row reader would report or warn about). The caller then
// reads the file with ReadEpisodes, which gives the exact messages; a
// column scan never reports a problem itself.
var ErrRowScan = errors.New("ledger: file needs the row reader")

// Vec is one column of a Batch, as plain slices valid only during the
// callback. Exactly one representation is set, by Kind: a string column
// read as a dictionary (Dict and Codes), a high-cardinality string column
// (Offsets and Data: row i is Data[Offsets[i]:Offsets[i+1]]), Ints, Floats
// or Bools.
type Vec struct {
	Name    string
	Kind    Kind
	Dict    []string
	Codes   []int32
	Offsets []int32
	Data    []byte
	Ints    []int64
	Floats  []float64
	Bools   []bool
	// Valid marks the rows that have a value in an optional column
	// (cost_usd) scanned with ScanParquetNulls; nil when every row has
	// one. A null row's value is 0.
	Valid []bool
}

// Bytes returns row i of a high-cardinality string column.
func (v *Vec) Bytes(i int) []byte { return v.Data[v.Offsets[i]:v.Offsets[i+1]] }

// Batch is a run of consecutive rows of a Parquet episode table.
type Batch struct {
	Rows     int
	FileRows int64 // rows of the whole file, for a consumer to size its arrays
	Cols     []Vec // in the order the columns were asked for
}

// ScanParquet reads the named schema columns of the Parquet episode table
// at path by columns, row groups in parallel on every core, and calls fn
// with each batch in row order (one call at a time). It validates what
// ReadEpisodes validates for those columns (every column ReadEpisodes
// would decode for them, so eos is checked against task_success and
// duplicated, and episode ids are checked to be unique); on anything the
// row reader would report, warn about or read differently it returns
// ErrRowScan, possibly after some batches were delivered. A row group is
// checked before it is delivered, so the delivered batches hold what the
// row reader reads for their rows: a caller may go on with ReadEpisodes
// from the first row not delivered (reading the earlier ones again, not
// using them, for the checks that span rows: a duplicate id is found
// only once every batch is out). Errors from fn are returned as they are.
func ScanParquet(path string, columns []string, fn func(*Batch) error) error {
	return scanParquet(path, columns, nil, true, fn)
}

// ScanParquetChecked is ScanParquet that also reads and validates the
// checked columns, as ReadEpisodes would validate them, without handing
// them to fn: the batches hold columns only. A caller that needs episode
// ids to be checked unique, but not their text, saves copying them.
func ScanParquetChecked(path string, columns, checked []string, fn func(*Batch) error) error {
	return scanParquet(path, columns, checked, true, fn)
}

// ScanParquetNulls is ScanParquetChecked that also scans nulls in an
// optional column (cost_usd) rather than giving up on them: such a
// column's Vec then has Valid set.
func ScanParquetNulls(path string, columns, checked []string, fn func(*Batch) error) error {
	return scanParquetWith(path, columns, checked, true, true, fn)
}

// RescanParquet is ScanParquet for a file that ScanParquet has read
// without an error: the unique ids are not checked again.
func RescanParquet(path string, columns []string, fn func(*Batch) error) error {
	return scanParquet(path, columns, nil, false, fn)
}

func scanParquet(path string, columns, checked []string, checkIDs bool, fn func(*Batch) error) error {
	return scanParquetWith(path, columns, checked, checkIDs, false, fn)
}

func scanParquetWith(path string, columns, checked []string, checkIDs, nulls bool, fn func(*Batch) error) error {
	if len(columns) == 0 || !strings.HasSuffix(strings.ToLower(path), ".parquet") {
		return ErrRowScan
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ErrRowScan
	}
	all := slices.Concat(columns, checked)
	// Names outside the schema are the user's extra columns: read when
	// the file has them as UTF-8 strings, as the row reader reads them.
	var extras []string
	for _, c := range all {
		if _, ok := colIndex[c]; !ok {
			extras = append(extras, c)
		}
	}
	m := maskOf(all)
	if popcount(m) != len(all)-len(extras) || len(extras) > 0 && slices.ContainsFunc(checked, func(c string) bool { return slices.Contains(extras, c) }) {
		return ErrRowScan // a name listed twice, or an extra column only checked
	}
	slices.Sort(extras)
	if len(slices.Compact(slices.Clone(extras))) != len(extras) {
		return ErrRowScan
	}
	p, err := openPQ(path)
	if err != nil {
		return ErrRowScan
	}
	defer p.close()
	m = needCols(all)
	for _, c := range checkOnlyCols {
		if i := colIndex[c]; m.has(i) && !slices.Contains(all, c) && p.schema.FieldIndices(c) == nil {
			m &^= 1 << uint(i)
		}
	}
	// Ids only checked, not handed out, are not decoded when a Rescan
	// needs no check, or when the file carries a certificate of them
	// (idcert.go): it is verified while the columns are scanned, and a
	// certificate that does not match ends the scan with ErrRowScan after
	// the last batch, so that the row reader checks every id (as for a
	// duplicate the scan finds).
	var certified chan bool
	if m.has(colEpisodeID) && !slices.Contains(columns, "episode_id") {
		switch {
		case !checkIDs:
			m &^= 1 << colEpisodeID
		case p.hasIDCertificate():
			m &^= 1 << colEpisodeID
			certified = make(chan bool, 1)
			go func() { certified <- p.idsCertified() }()
		}
	}
	plan, _, err := p.plan(EpisodeColumns, m.has, len(extras) > 0, "episodes")
	if err != nil || p.pf.NumRows() == 0 {
		return ErrRowScan
	}
	for i, c := range EpisodeColumns {
		if sparseCols.has(i) && m.has(i) && p.schema.FieldIndices(c.Name) == nil {
			return ErrRowScan // a sparse column the file lacks: the row reader names it
		}
	}
	if p.nullCols(requiredSet&^m) != 0 {
		return ErrRowScan // a column not read may hold a null: the row reader looks
	}
	plan = slices.DeleteFunc(plan, func(c pqCol) bool { return c.extra && !slices.Contains(extras, c.name) })
	for _, x := range extras {
		i := planIndex(plan, x)
		if i < 0 || p.schema.Field(plan[i].field).Type.ID() != arrow.STRING {
			return ErrRowScan // absent (the row reader names it) or not text
		}
	}
	s := &colScan{p: p, plan: plan, out: make([]int, len(plan)), nulls: nulls}
	for i, c := range plan {
		s.out[i] = slices.Index(columns, c.name)
	}
	s.eos, s.ts, s.dup = planIndex(plan, "eos"), planIndex(plan, "task_success"), planIndex(plan, "duplicated")
	s.id = planIndex(plan, "episode_id")
	// Cross-column plausibility checks warn row by row: the scan looks
	// for a row that would warn and then hands over to the row reader,
	// which gives the warnings.
	for _, x := range []struct {
		mask colMask
		cols *[]int
	}{{mPlatform, &s.platform}, {mDelay, &s.delay}, {mBatch, &s.batch}, {mReplay, &s.replay}} {
		if m&x.mask != x.mask {
			continue
		}
		for i, c := range EpisodeColumns {
			if x.mask.has(i) {
				j := planIndex(plan, c.Name)
				if j < 0 || s.out[j] < 0 {
					// Only checked, perhaps in place: not in the batch.
					return ErrRowScan
				}
				*x.cols = append(*x.cols, j)
			}
		}
	}
	if !checkIDs {
		s.id = -1
	}
	// A reader of its own whose page buffers are recycled: the page
	// readers of every row group would otherwise allocate them afresh.
	s.pf, err = file.NewParquetReader(p.f, file.WithReadProps(parquet.NewReaderProperties(&bufferPool{})))
	if err != nil {
		return ErrRowScan
	}
	s.seed = maphash.MakeSeed()
	if err := s.run(len(columns), fn); err != nil {
		return err
	}
	if certified != nil && !<-certified {
		return ErrRowScan
	}
	return nil
}

func planIndex(plan []pqCol, name string) int {
	return slices.IndexFunc(plan, func(c pqCol) bool { return c.name == name })
}

// colScan is one ScanParquet.
type colScan struct {
	p                *pqFile
	pf               *file.Reader // p's file, with pooled buffers
	plan             []pqCol
	out              []int // position of plan[i] in the caller's columns, or −1 (checked only)
	eos, ts, dup, id int
	nulls            bool // an optional column's nulls go to Vec.Valid
	// Plan positions of the columns of each cross-column warning
	// (validate.go), in schema order; nil when not all are read.
	platform, delay, batch, replay []int
	seed                           maphash.Seed
	// free holds the buffers of batches fn has seen, for the next row
	// groups (a channel, not a sync.Pool, which a GC would empty).
	free   chan []Vec
	passed sync.Map // column name + "\x00" + value → passed checkString
}

// buffers returns the buffers of a batch fn has seen, or new ones.
func (s *colScan) buffers() []Vec {
	select {
	case v := <-s.free:
		return v
	default:
		return make([]Vec, len(s.plan))
	}
}

// rgResult is one decoded row group and the hashes of its episode ids.
type rgResult struct {
	batch *Batch
	ids   *idBuckets
	vecs  []Vec // the batch's buffers, recycled once fn has seen it
	err   error
}

// idBuckets holds the hashes of a row group's episode ids by their top
// byte, so that the uniqueness check sorts 256 small runs in parallel
// rather than one large one.
type idBuckets [256][]uint64

func (s *colScan) run(ncols int, fn func(*Batch) error) error {
	nrg := s.p.pf.NumRowGroups()
	workers := min(runtime.GOMAXPROCS(0), nrg)
	// Row groups are decoded ahead by the workers, at most 2 per worker
	// in flight, and handed to fn in order.
	results := make([]chan rgResult, nrg)
	for i := range results {
		results[i] = make(chan rgResult, 1)
	}
	next := make(chan int)
	done := make(chan struct{})
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*workers)
	s.free = make(chan []Vec, 2*workers+1)
	leaves := s.p.leafIndices(s.plan)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rg := range next {
				results[rg] <- s.safeRowGroup(rg, leaves, ncols)
			}
		}()
	}
	go func() {
		defer close(next)
		for rg := range nrg {
			select {
			case sem <- struct{}{}:
			case <-done:
				return
			}
			select {
			case next <- rg:
			case <-done:
				return
			}
		}
	}()
	defer wg.Wait()
	defer close(done)
	var ids []*idBuckets
	for rg := range nrg {
		r := <-results[rg]
		if r.err != nil {
			<-sem
			return r.err
		}
		err := fn(r.batch)
		select {
		case s.free <- r.vecs:
		default:
		}
		<-sem
		if err != nil {
			return err
		}
		if r.ids != nil {
			ids = append(ids, r.ids)
		}
	}
	if s.id >= 0 && !uniqueIDs(ids, workers) {
		return ErrRowScan // a duplicate id (or a hash collision): the row reader tells
	}
	return nil
}

// uniqueIDs reports whether no hash repeats, sorting the buckets on
// workers goroutines.
func uniqueIDs(rgs []*idBuckets, workers int) bool {
	var bad atomic.Bool
	var wg sync.WaitGroup
	next := atomic.Int32{}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// An open-addressing set per bucket: a bucket holds 1/256 of
			// the ids, so its table stays in cache.
			var table []uint64
			for k := int(next.Add(1)) - 1; k < 256 && !bad.Load(); k = int(next.Add(1)) - 1 {
				n := 0
				for _, b := range rgs {
					n += len(b[k])
				}
				size := 1 << bits.Len(uint(2*n))
				if cap(table) < size {
					table = make([]uint64, size)
				}
				table = table[:size]
				clear(table)
				mask := uint64(size - 1)
				zero := false // 0 marks an empty slot; the hash 0 is tracked apart
				for _, b := range rgs {
					for _, h := range b[k] {
						if h == 0 {
							if zero {
								bad.Store(true)
								return
							}
							zero = true
							continue
						}
						for j := h & mask; ; j = (j + 1) & mask {
							if table[j] == 0 {
								table[j] = h
								break
							}
							if table[j] == h {
								bad.Store(true)
								return
							}
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return !bad.Load()
}

// rowGroup decodes and checks row group rg: its pages are decoded here
// rather than by pqarrow, so that dictionary indices land in an []int32
// without building Arrow arrays.
// safeRowGroup is rowGroup on a worker goroutine, where a panic of the
// Parquet library on a malformed page cannot be recovered by the caller:
// it hands the file over to the row reader, which reports it.
func (s *colScan) safeRowGroup(rg int, leaves []int, ncols int) (r rgResult) {
	defer func() {
		if recover() != nil {
			r = rgResult{err: ErrRowScan}
		}
	}()
	return s.rowGroup(rg, leaves, ncols)
}

func (s *colScan) rowGroup(rg int, leaves []int, ncols int) rgResult {
	rgr := s.pf.RowGroup(rg)
	n := int(rgr.NumRows())
	var ids *idBuckets
	vecs := s.buffers()
	for i, c := range s.plan {
		descr := s.p.pf.MetaData().Schema.Column(leaves[i])
		optional := descr.MaxDefinitionLevel() == 1 && descr.MaxRepetitionLevel() == 0 && c.kind == KindFloat &&
			descr.PhysicalType() == parquet.Types.Double
		if !optional && (descr.MaxDefinitionLevel() != 0 || descr.MaxRepetitionLevel() != 0) {
			return rgResult{err: ErrRowScan} // nested, or levels of another type
		}
		v := Vec{Name: c.name, Kind: c.kind}
		old := &vecs[i]
		var ok bool
		switch {
		case optional:
			v.Floats = slices.Grow(old.Floats[:0], n)
			ok = s.decodeOptional(rgr, leaves[i], n, &v)
			if ok && v.Valid != nil && !s.nulls {
				ok = false // a null: the row reader's, unless asked for
			}
		case c.kind == KindString && descr.PhysicalType() == parquet.Types.ByteArray:
			v.Codes, v.Offsets, v.Data = old.Codes[:0], old.Offsets[:0], old.Data[:0]
			if s.out[i] < 0 && !textListed(c) {
				// A column read only to be checked: PLAIN values are
				// checked (and ids hashed) where they lie in the page,
				// not copied.
				chk := plainCheck{name: c.name}
				if i == s.id {
					ids = newIDBuckets(n)
					chk.ids, chk.seed = ids, s.seed
				}
				var checked bool
				ok, checked = s.decodeStrings(rgr, leaves[i], n, &v, chk.page)
				if checked {
					continue // vecs[i] keeps its buffers; fn never sees it
				}
				ids = nil
			} else {
				ok, _ = s.decodeStrings(rgr, leaves[i], n, &v, nil)
			}
		case c.kind == KindInt && descr.PhysicalType() == parquet.Types.Int64:
			v.Ints = slices.Grow(old.Ints[:0], n)
			ok = s.decodePlain(rgr, leaves[i], n, func(b []byte, k int) bool {
				if len(b) < 8*k {
					return false
				}
				for j := range k {
					v.Ints = append(v.Ints, int64(binary.LittleEndian.Uint64(b[8*j:])))
				}
				return true
			})
		case c.kind == KindFloat && descr.PhysicalType() == parquet.Types.Double:
			v.Floats = slices.Grow(old.Floats[:0], n)
			ok = s.decodePlain(rgr, leaves[i], n, func(b []byte, k int) bool {
				if len(b) < 8*k {
					return false
				}
				for j := range k {
					v.Floats = append(v.Floats, math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:])))
				}
				return true
			})
		case c.kind == KindBool && descr.PhysicalType() == parquet.Types.Boolean:
			v.Bools = slices.Grow(old.Bools[:0], n)
			ok = s.decodePlain(rgr, leaves[i], n, func(b []byte, k int) bool {
				if len(b) < (k+7)/8 {
					return false
				}
				for j := range k {
					v.Bools = append(v.Bools, b[j>>3]&(1<<(j&7)) != 0)
				}
				return true
			})
		}
		if !ok || !s.checkVec(c, &v, n) {
			return rgResult{err: ErrRowScan}
		}
		if i == s.id {
			if v.Offsets == nil {
				return rgResult{err: ErrRowScan}
			}
			ids = newIDBuckets(n)
			for r := range n {
				h := maphash.Bytes(s.seed, v.Bytes(r))
				ids[h>>56] = append(ids[h>>56], h)
			}
		}
		vecs[i] = v
	}
	if s.eos >= 0 && s.ts >= 0 && s.dup >= 0 {
		eos, ts, dup := vecs[s.eos].Bools, vecs[s.ts].Bools, vecs[s.dup].Bools
		for r := range n {
			if eos[r] && (!ts[r] || dup[r]) {
				return rgResult{err: ErrRowScan}
			}
		}
	}
	if !plausible(vecs, s.platform, s.delay, s.batch, n) || !replayTogether(vecs, s.replay, n) {
		return rgResult{err: ErrRowScan}
	}
	b := &Batch{Rows: n, FileRows: s.p.pf.NumRows(), Cols: make([]Vec, ncols)}
	for i, o := range s.out {
		if o >= 0 {
			b.Cols[o] = vecs[i]
		}
	}
	return rgResult{batch: b, ids: ids, vecs: vecs}
}

// newIDBuckets returns buckets for the ids of n rows: one backing array,
// each bucket sized for its share and some, so appends rarely outgrow it.
func newIDBuckets(n int) *idBuckets {
	ids := new(idBuckets)
	per := n/256 + n/2048 + 8
	all := make([]uint64, 256*per)
	for k := range ids {
		ids[k] = all[k*per : k*per : (k+1)*per]
	}
	return ids
}

// textListed reports whether the values of string column c are checked
// against a list, which the scan does only for dictionary columns.
func textListed(c pqCol) bool {
	return !c.extra && enumOf[c.dst].Values != nil || c.name == "focal_write" || c.name == "harness" || c.name == "condition" || c.name == "experiment"
}

// plainCheck checks the PLAIN values of a string column in place, as
// checkVec checks them after a copy, and hashes them into ids when set.
type plainCheck struct {
	name string
	ids  *idBuckets
	seed maphash.Seed
}

// page checks the k values of a PLAIN page; false for a malformed page
// or a value the row reader would report.
func (p *plainCheck) page(b []byte, k int) bool {
	// Lengths and text all below 0x80 make every value valid UTF-8.
	ascii := asciiOnly(b)
	for range k {
		if len(b) < 4 {
			return false
		}
		l := int(binary.LittleEndian.Uint32(b))
		if l < 0 || len(b)-4 < l {
			return false
		}
		x := b[4 : 4+l]
		b = b[4+l:]
		if len(x) == 0 && p.name != "platform" || !ascii && !utf8.Valid(x) {
			return false
		}
		if _, ctl := controlIn(x); ctl {
			return false
		}
		if p.ids != nil {
			h := maphash.Bytes(p.seed, x)
			p.ids[h>>56] = append(p.ids[h>>56], h)
		}
	}
	return true
}

// asciiOnly reports whether every byte of b is below 0x80.
func asciiOnly(b []byte) bool {
	var a0, a1 uint64
	for len(b) >= 16 {
		a0 |= binary.LittleEndian.Uint64(b)
		a1 |= binary.LittleEndian.Uint64(b[8:])
		b = b[16:]
	}
	for _, c := range b {
		a0 |= uint64(c)
	}
	return (a0|a1)&0x8080808080808080 == 0
}

// Parquet encodings (parquet.thrift) of the pages the scan decodes.
const (
	encPlain          = 0
	encPlainDict      = 2
	encRLEDict        = 8
	pageData          = file.PageTypeDataPage
	pageDict          = file.PageTypeDictionaryPage
	maxDictionarySize = 1 << 20
)

// decodePlain runs put on the PLAIN-encoded values of each data page of
// column leaf (k values each); ok is false for anything else.
func (s *colScan) decodePlain(rgr *file.RowGroupReader, leaf, n int, put func(b []byte, k int) bool) bool {
	pr, err := rgr.GetColumnPageReader(leaf)
	if err != nil {
		return false
	}
	defer pr.Close()
	got := 0
	for pr.Next() {
		pg := pr.Page()
		if pg.Type() != pageData || int32(pg.Encoding()) != encPlain {
			return false
		}
		k := int(pg.NumValues())
		if got+k > n || !put(pg.Data(), k) {
			return false
		}
		got += k
	}
	return pr.Err() == nil && got == n
}

// decodeStrings decodes a BYTE_ARRAY column: dictionary-encoded pages into
// v.Dict and v.Codes, PLAIN pages into v.Offsets and v.Data; a chunk that
// mixes the two (a writer's dictionary overflow) is left to the row
// reader. With check set, PLAIN pages are handed to it instead of being
// copied, and checked reports that they were (v is then not filled).
func (s *colScan) decodeStrings(rgr *file.RowGroupReader, leaf, n int, v *Vec, check func(b []byte, k int) bool) (ok, checked bool) {
	pr, err := rgr.GetColumnPageReader(leaf)
	if err != nil {
		return false, false
	}
	defer pr.Close()
	codes, offs, data := v.Codes[:0], v.Offsets[:0], v.Data[:0]
	v.Codes, v.Offsets, v.Data = nil, nil, nil
	got := 0
	plain, dict := false, false
	for pr.Next() {
		pg := pr.Page()
		switch pg.Type() {
		case pageDict:
			if v.Dict != nil || int(pg.NumValues()) > maxDictionarySize {
				return false, false
			}
			switch int32(pg.Encoding()) {
			case encPlain, encPlainDict:
			default:
				return false, false
			}
			vals, ok := plainByteArrays(pg.Data(), int(pg.NumValues()))
			if !ok {
				return false, false
			}
			v.Dict = make([]string, len(vals))
			for j, x := range vals {
				v.Dict[j] = string(x)
			}
			codes = slices.Grow(codes, n)
		case pageData:
			k := int(pg.NumValues())
			if got+k > n {
				return false, false
			}
			switch int32(pg.Encoding()) {
			case encPlainDict, encRLEDict:
				if v.Dict == nil || plain {
					return false, false
				}
				dict = true
				var ok bool
				if codes, ok = appendRLEDict(codes, pg.Data(), k, len(v.Dict)); !ok {
					return false, false
				}
			case encPlain:
				if dict {
					return false, false
				}
				if check != nil {
					plain = true
					if !check(pg.Data(), k) {
						return false, false
					}
					break
				}
				if !plain {
					plain = true
					offs = append(slices.Grow(offs, n+1), 0)
					// The chunk's uncompressed size bounds the values'.
					if cc, err := rgr.MetaData().ColumnChunk(leaf); err == nil {
						// With an eighth more, a recycled buffer fits the
						// next row groups' chunks too.
						size := int(max(0, min(cc.TotalUncompressedSize(), 1<<30)))
						if cap(data) < size {
							data = make([]byte, 0, size+size/8)
						}
					}
				}
				var ok bool
				if offs, data, ok = appendPlainByteArrays(offs, data, pg.Data(), k); !ok {
					return false, false
				}
			default:
				return false, false
			}
			got += k
		default:
			return false, false
		}
	}
	if pr.Err() != nil || got != n {
		return false, false
	}
	if plain && check != nil {
		return true, true
	}
	if plain {
		v.Dict, v.Offsets, v.Data = nil, offs, data
		return true, false
	}
	if v.Dict == nil { // an empty row group
		v.Dict = []string{}
	}
	if codes == nil {
		codes = []int32{}
	}
	v.Codes = codes
	return true, false
}

// plainByteArrays splits k PLAIN byte arrays (4-byte length, then bytes).
func plainByteArrays(b []byte, k int) ([][]byte, bool) {
	out := make([][]byte, 0, k)
	for range k {
		if len(b) < 4 {
			return nil, false
		}
		l := int(binary.LittleEndian.Uint32(b))
		if l < 0 || len(b)-4 < l {
			return nil, false
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	return out, true
}

// appendPlainByteArrays appends k PLAIN byte arrays to offs and data.
func appendPlainByteArrays(offs []int32, data, b []byte, k int) ([]int32, []byte, bool) {
	for range k {
		if len(b) < 4 {
			return offs, data, false
		}
		l := int(binary.LittleEndian.Uint32(b))
		if l < 0 || len(b)-4 < l || len(data)+l > math.MaxInt32 {
			return offs, data, false
		}
		data = append(data, b[4:4+l]...)
		offs = append(offs, int32(len(data)))
		b = b[4+l:]
	}
	return offs, data, true
}

// appendRLEDict decodes k dictionary indices (a bit-width byte, then the
// RLE/bit-packed hybrid encoding of parquet's Encodings.md) and appends
// them to codes; ok is false for a malformed page or an index ≥ size.
func appendRLEDict(codes []int32, b []byte, k, size int) ([]int32, bool) {
	if len(b) < 1 {
		return codes, k == 0
	}
	return appendRLEHybrid(codes, b[1:], k, int(b[0]), size)
}

// appendRLEHybrid decodes k values of bit width width in the RLE/bit-packed
// hybrid encoding and appends them to codes; ok is false for a malformed
// page or a value ≥ size.
func appendRLEHybrid(codes []int32, b []byte, k, width, size int) ([]int32, bool) {
	if width > 32 {
		return codes, false
	}
	want := len(codes) + k
	mask := uint64(1)<<width - 1
	for len(codes) < want {
		h, m := binary.Uvarint(b)
		if m <= 0 {
			return codes, false
		}
		b = b[m:]
		if h&1 == 1 { // bit-packed: (h>>1) groups of 8 values
			count := int(h>>1) * 8
			nbytes := int(h>>1) * width
			if nbytes > len(b) {
				return codes, false
			}
			var acc uint64
			bits := 0
			p := 0
			for range count {
				for bits < width {
					acc |= uint64(b[p]) << bits
					p++
					bits += 8
				}
				x := acc & mask
				acc >>= width
				bits -= width
				if len(codes) < want {
					if int(x) >= size {
						return codes, false
					}
					codes = append(codes, int32(x))
				}
			}
			b = b[nbytes:]
		} else { // a run of one value
			count := int(h >> 1)
			nb := (width + 7) / 8
			if nb > len(b) {
				return codes, false
			}
			var x uint64
			for j := range nb {
				x |= uint64(b[j]) << (8 * j)
			}
			b = b[nb:]
			if int(x) >= size && count > 0 || count > want-len(codes) {
				return codes, false
			}
			for range count {
				codes = append(codes, int32(x))
			}
		}
	}
	return codes, true
}

// checkVec checks a decoded column as the row reader would; false when it
// would report or warn.
func (s *colScan) checkVec(c pqCol, v *Vec, n int) bool {
	if c.extra {
		return checkExtra(v, n)
	}
	switch {
	case v.Dict != nil:
		return len(v.Codes) == n && s.checkDict(c, v.Dict, v.Codes)
	case v.Offsets != nil:
		if n > 0 && textListed(c) {
			return false // checked against a list: read as a dictionary
		}
		// All bytes below 0x80: every value is valid UTF-8.
		ascii := asciiOnly(v.Data)
		if _, ctl := controlIn(v.Data); ctl {
			return false // a label with a control character: the row reader names it
		}
		for r := range n {
			x := v.Bytes(r)
			if len(x) == 0 && c.name != "platform" || !ascii && !utf8.Valid(x) {
				return false
			}
		}
	case v.Ints != nil:
		return c.name == "seed" || !slices.ContainsFunc(v.Ints, func(x int64) bool { return x < 0 })
	case v.Floats != nil:
		for _, x := range v.Floats {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || c.name == "weight" && x == 0 {
				return false
			}
		}
	}
	return true
}

// checkExtra checks a user's extra column: the row reader takes any
// text, but an empty one is a missing value (rows dropped with a warning)
// and non-UTF-8 text is left to it as well.
func checkExtra(v *Vec, n int) bool {
	switch {
	case v.Dict != nil:
		if len(v.Codes) != n {
			return false
		}
		used := make([]bool, len(v.Dict))
		for _, k := range v.Codes {
			if k < 0 || int(k) >= len(v.Dict) {
				return false
			}
			used[k] = true
		}
		for k, x := range v.Dict {
			if used[k] && (x == "" || !utf8.ValidString(x)) {
				return false
			}
		}
		return true
	case v.Offsets != nil:
		ascii := asciiOnly(v.Data)
		for r := range n {
			x := v.Bytes(r)
			if len(x) == 0 || !ascii && !utf8.Valid(x) {
				return false
			}
		}
		return true
	}
	return false
}

// checkDict reports whether every value of a dictionary column that some
// row uses passes the row reader's checks without a problem.
func (s *colScan) checkDict(c pqCol, dict []string, codes []int32) bool {
	used := make([]bool, len(dict))
	for _, k := range codes {
		if k < 0 || int(k) >= len(dict) {
			return false
		}
		used[k] = true
	}
	for k, v := range dict {
		if !used[k] {
			continue
		}
		key := c.name + "\x00" + v
		if _, ok := s.passed.Load(key); ok {
			continue
		}
		clean := true
		checkString(c.dst, v, func(Problem) { clean = false })
		if !clean {
			return false
		}
		s.passed.Store(key, true)
	}
	return true
}

// bufferPool is an arrow memory.Allocator that recycles buffers by
// power-of-two size class. Buffers are not zeroed: the page readers fill
// what they allocate (decompressed pages, column chunks read whole).
type bufferPool struct {
	mu   sync.Mutex
	free [64][][]byte
}

const minPoolClass = 12 // 4 KiB

func poolClass(size int) int { return max(minPoolClass, bits.Len(uint(size-1))) }

func (p *bufferPool) Allocate(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	c := poolClass(size)
	p.mu.Lock()
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.mu.Unlock()
		return b[:size]
	}
	p.mu.Unlock()
	return make([]byte, size, 1<<c)
}

func (p *bufferPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *bufferPool) Free(b []byte) {
	c := bits.Len(uint(cap(b))) - 1
	if cap(b) == 0 || 1<<c != cap(b) || c < minPoolClass {
		return // not one of ours
	}
	p.mu.Lock()
	if len(p.free[c]) < 16 {
		p.free[c] = append(p.free[c], b[:0])
	}
	p.mu.Unlock()
}

// vecString returns row r of a string column as the row reader reads it.
func vecString(v *Vec, r int) string {
	if v.Dict != nil {
		return v.Dict[v.Codes[r]]
	}
	return string(v.Bytes(r))
}

// plausible reports whether no row of n raises one of checkEpisode's
// cross-column warnings (platform, delay_s, partial batch); platform,
// delay and batch are the plan positions of their columns (service,
// platform; fault_mode, fault_fired, delay_s; focal_write, fault_mode),
// nil when the scan does not read them all.
func plausible(vecs []Vec, platform, delay, batch []int, n int) bool {
	if platform != nil {
		svc, pl := &vecs[platform[0]], &vecs[platform[1]]
		for r := range n {
			if platformed(vecString(svc, r)) != (vecString(pl, r) != "") {
				return false
			}
		}
	}
	if delay != nil {
		mode, fired, d := &vecs[delay[0]], vecs[delay[1]].Bools, vecs[delay[2]].Floats
		for r := range n {
			late := slices.Contains(LateModes, vecString(mode, r))
			if late && fired[r] && d[r] == 0 || !late && d[r] > 0 && !math.IsInf(d[r], 0) {
				return false
			}
		}
	}
	if batch != nil {
		fw, mode := &vecs[batch[0]], &vecs[batch[1]]
		for r := range n {
			if offBatch(vecString(mode, r), vecString(fw, r)) {
				return false
			}
		}
	}
	return true
}

// replayTogether reports whether no row raises the agent-side columns'
// warning (validate.go); replay are the plan positions of agent_fault,
// crash_window and guard, nil when the scan does not read them all.
func replayTogether(vecs []Vec, replay []int, n int) bool {
	if replay == nil {
		return true
	}
	af, cw, g := &vecs[replay[0]], &vecs[replay[1]], &vecs[replay[2]]
	for r := range n {
		a, w, gu := vecString(af, r), vecString(cw, r), vecString(g, r)
		if (a != "" || w != "" || gu != "") && ((a == "") != (gu == "") || (a == AgentFaultCrashResume) != (w != "")) {
			return false
		}
	}
	return true
}

// decodeOptional decodes an optional DOUBLE column of data pages v1 with
// RLE definition levels (a 4-byte length, then the levels at bit width
// 1) and PLAIN values for the rows defined: v.Floats gets 0 for a null,
// v.Valid is set when there is one.
func (s *colScan) decodeOptional(rgr *file.RowGroupReader, leaf, n int, v *Vec) bool {
	pr, err := rgr.GetColumnPageReader(leaf)
	if err != nil {
		return false
	}
	defer pr.Close()
	var lv []int32
	got := 0
	for pr.Next() {
		pg, ok := pr.Page().(*file.DataPageV1)
		if !ok || int32(pg.Encoding()) != encPlain || pg.DefinitionLevelEncoding() != parquet.Encodings.RLE {
			return false
		}
		k := int(pg.NumValues())
		b := pg.Data()
		if got+k > n || len(b) < 4 {
			return false
		}
		l := int(binary.LittleEndian.Uint32(b))
		if l > len(b)-4 {
			return false
		}
		if lv, ok = appendRLEHybrid(lv[:0], b[4:4+l], k, 1, 2); !ok {
			return false
		}
		b = b[4+l:]
		for j, d := range lv {
			if d == 0 {
				if v.Valid == nil {
					v.Valid = make([]bool, got+j, n)
					for r := range v.Valid {
						v.Valid[r] = true
					}
				}
				v.Valid = append(v.Valid, false)
				v.Floats = append(v.Floats, 0)
				continue
			}
			if len(b) < 8 {
				return false
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
			v.Floats = append(v.Floats, x)
			if v.Valid != nil {
				v.Valid = append(v.Valid, true)
			}
		}
		got += k
	}
	return pr.Err() == nil && got == n
}
