package analysis

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// pairTable is the 2×2 table of matched pairs of two arms: a both
// succeed, b only the first (base) arm, c only the second, d neither, with
// the summed pair weights (the first arm's episode weight).
type pairTable struct {
	a, b, c, d             int
	wa, wb, wc, wd         float64
	unmatched1, unmatched2 int
}

func (t pairTable) pairs() int { return t.a + t.b + t.c + t.d }

// pairing indexes episodes by pair-by key and arm level for k-th with
// k-th matching: one array of episodes sorted by (key, arm, episode_id),
// keys in the order of their codes, with each key's segment. Compared with
// a map of id-sorted lists per key, it holds a few bytes per episode, and
// episode ids are compared only within a key and arm holding several
// episodes (never in the common one-episode-per-arm design).
type pairing struct {
	arm   *frame.Column
	seg   []int     // key k's episodes are [seg[k], seg[k+1])
	armOf []int32   // arm code of each episode, in sorted order
	event []bool    // outcome of each episode
	w     []float64 // weight of each episode; nil for unit weights
}

// pairRows is what buildPairing needs of n episodes: key rank (keys
// numbered in sorted order), arm code, outcome, optional weight, and an
// episode_id comparison.
type pairRows struct {
	n      int
	nKeys  int
	key    []uint32
	arm    []int32
	event  func(i int) bool
	weight func(i int) float64 // nil: unit weights
	cmpID  func(i, j int) int
}

// buildPairing sorts the episodes by key (a counting sort) and, within a
// key, by arm and then episode_id (ties in row order).
func buildPairing(arm *frame.Column, r pairRows) *pairing {
	seg, perm := sortPairRows(r)
	for k := range r.nKeys {
		sortSegment(perm[seg[k]:seg[k+1]], r)
	}
	return pairingOf(arm, r, seg, perm)
}

// sortPairRows orders the episodes by key, then arm, then row: a stable
// counting sort by arm followed by one by key, linear in the episodes
// (arm codes are few and key ranks dense), where sorting each key's
// episodes would compare millions of short runs.
func sortPairRows(r pairRows) (seg []int, perm []int32) {
	nArms := int32(0)
	for _, a := range r.arm {
		nArms = max(nArms, a+1)
	}
	next := make([]int, max(int(nArms), r.nKeys)+1)
	for _, a := range r.arm {
		next[a+1]++
	}
	for a := range nArms {
		next[a+1] += next[a]
	}
	byArm := make([]int32, r.n)
	for i, a := range r.arm {
		byArm[next[a]] = int32(i)
		next[a]++
	}
	seg = make([]int, r.nKeys+1)
	for _, k := range r.key {
		seg[k+1]++
	}
	for k := range r.nKeys {
		seg[k+1] += seg[k]
	}
	next = next[:r.nKeys]
	copy(next, seg)
	perm = make([]int32, r.n)
	for _, i := range byArm {
		k := r.key[i]
		perm[next[k]] = i
		next[k]++
	}
	return seg, perm
}

// sortSegment sorts one key's episodes by arm, episode_id and row.
func sortSegment(rows []int32, r pairRows) {
	if len(rows) < 2 {
		return
	}
	slices.SortFunc(rows, func(a, b int32) int {
		if c := cmp.Compare(r.arm[a], r.arm[b]); c != 0 {
			return c
		}
		if c := r.cmpID(int(a), int(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

// pairingOf lays out the sorted episodes.
func pairingOf(arm *frame.Column, r pairRows, seg []int, perm []int32) *pairing {
	p := &pairing{arm: arm, seg: seg, armOf: make([]int32, r.n), event: make([]bool, r.n)}
	if r.weight != nil {
		p.w = make([]float64, r.n)
	}
	for j, i := range perm {
		p.armOf[j] = r.arm[i]
		p.event[j] = r.event(int(i))
		if p.w != nil {
			p.w[j] = r.weight(int(i))
		}
	}
	return p
}

// rankKeys replaces key ids (indices into keys) by their rank in the
// sorted keys.
func rankKeys(key []uint32, keys []string) {
	order := make([]uint32, len(keys))
	for k := range order {
		order[k] = uint32(k)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]uint32, len(keys))
	for r, k := range order {
		rank[k] = uint32(r)
	}
	for i, k := range key {
		key[i] = rank[k]
	}
}

// armRange returns the episodes of arm level l in [lo, hi) (sorted by arm).
func (p *pairing) armRange(lo, hi int, l int32) (int, int) {
	a := lo
	for a < hi && p.armOf[a] < l {
		a++
	}
	b := a
	for b < hi && p.armOf[b] == l {
		b++
	}
	return a, b
}

// table pairs the episodes of arm levels l1 and l2 k-th with k-th within
// each key.
func (p *pairing) table(l1, l2 int32) pairTable {
	var t pairTable
	for k := range len(p.seg) - 1 {
		a1, b1 := p.armRange(p.seg[k], p.seg[k+1], l1)
		a2, b2 := p.armRange(p.seg[k], p.seg[k+1], l2)
		n := min(b1-a1, b2-a2)
		t.unmatched1 += b1 - a1 - n
		t.unmatched2 += b2 - a2 - n
		for i := range n {
			e1, e2 := p.event[a1+i], p.event[a2+i]
			w := 1.0
			if p.w != nil {
				w = p.w[a1+i]
			}
			switch {
			case e1 && e2:
				t.a++
				t.wa += w
			case e1:
				t.b++
				t.wb += w
			case e2:
				t.c++
				t.wc += w
			default:
				t.d++
				t.wd += w
			}
		}
	}
	return t
}

// armLevel returns the code of level in the arm column, or an error listing
// the levels present.
func armLevel(arm *frame.Column, field, level string) (int32, error) {
	i := slices.Index(arm.Levels, level)
	if i < 0 {
		return 0, fieldtext.New(field, "{"+field+"} %s: no episode has %s = %q after {Where}; levels present: %s", level, arm.Name, level, strings.Join(arm.Levels, ", "))
	}
	return int32(i), nil
}

// pairSpec is the frame spec of a paired analysis.
func pairSpec(outcome, arm string, pairBy []string, weight string) frame.Spec {
	cols := slices.Clone(pairBy)
	for _, c := range []string{arm, "episode_id"} {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return frame.Spec{Columns: cols, Outcome: outcome, Weight: weight}
}

// pairReader accumulates the episodes of a paired analysis while the
// ledger streams: a table of distinct pair-by keys, and per episode a key
// id, an arm code and the outcome (one bit), plus the weight when
// weighted. Episode ids are not kept: they order the episodes of a key and
// arm only when there are several, and then a second pass reads them for
// those episodes alone. It follows frame.Builder (pairSpec) row for row:
// the same columns checked, the same rows dropped for nulls, the same
// errors and level order.
type pairReader struct {
	spec  frame.Spec
	all   []string // columns checked on the first row, as frame.Builder
	names []string // pairSpec columns: pair-by, arm, episode_id
	kinds []ledger.Kind
	seen  []bool
	nKey  int // the first nKey columns form the key
	armJ  int
	keys  keyTable // distinct keys, ids in order of appearance
	buf   []byte
	arms  frame.Dict // the arm's levels in order of first appearance
	// keyOf maps the codes of a one-column key's batch dictionary,
	// keyDict, to key ids (−1: not seen yet). A held Data's batches all
	// carry its one dictionary, so that each text is looked up once, not
	// once a row.
	keyDict []string
	keyOf   []int32
	key     []uint32
	arm     []int32
	event   bitset
	w       []float64
	kept    bitset // by read index: the episode was added
	rows    int64
	dropped map[string]int64
	first   bool
	byRows  int64 // rows added as rows, not on codes (tests check the codes' path)
	// columns is set while rows of a batch of columns are added as rows:
	// episode ids only checked are not among them.
	columns bool
}

// bitset is a growable set of small integers.
type bitset []uint64

func (b *bitset) set(i int, v bool) {
	for i>>6 >= len(*b) {
		*b = append(*b, 0)
	}
	if v {
		(*b)[i>>6] |= 1 << (i & 63)
	}
}

func (b bitset) get(i int) bool { return i>>6 < len(b) && b[i>>6]&(1<<(i&63)) != 0 }

func newPairReader(outcome, arm string, pairBy []string, weight string) *pairReader {
	spec := pairSpec(outcome, arm, pairBy, weight)
	r := &pairReader{spec: spec, names: spec.Columns, nKey: len(pairBy), armJ: len(pairBy), keys: newKeyTable(),
		dropped: map[string]int64{}, first: true,
		kinds: make([]ledger.Kind, len(spec.Columns)), seen: make([]bool, len(spec.Columns))}
	r.all = slices.Clone(spec.Columns)
	r.all = append(r.all, outcome)
	if weight != "" {
		r.all = append(r.all, weight)
	}
	return r
}

// add takes episode number read (0-based, counting every episode read)
// after --where.
func (r *pairReader) add(ep frame.Row, read int64) error {
	if r.first {
		r.first = false
		if err := frame.CheckColumns(ep, r.all); err != nil {
			return err
		}
	}
	w := 1.0
	if r.spec.Weight != "" {
		v, ok := ep.Get(r.spec.Weight)
		if !ok {
			return frame.CheckColumns(ep, []string{r.spec.Weight})
		}
		if v.Null {
			r.dropped[r.spec.Weight]++
			return nil
		}
		f, ok := frame.Number(v)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return frame.WeightError(r.spec.Weight, v)
		}
		w = f
	}
	v, ok := ep.Get(r.spec.Outcome)
	if !ok {
		return frame.CheckColumns(ep, []string{r.spec.Outcome})
	}
	if v.Null {
		r.dropped[r.spec.Outcome]++
		return nil
	}
	y, err := frame.Binary(v)
	if err != nil {
		return frame.OutcomeError(r.spec.Outcome, err)
	}
	r.buf = r.buf[:0]
	var armVal string
	for j, c := range r.names {
		v, ok := ep.Get(c)
		if !ok && r.columns && j > r.armJ {
			continue // episode ids, checked by the source and not handed out
		}
		if !ok {
			return frame.CheckColumns(ep, []string{c})
		}
		if v.Null {
			r.dropped[c]++
			return nil
		}
		if !r.seen[j] {
			r.seen[j] = true
			r.kinds[j] = v.Kind
		}
		switch {
		case j < r.nKey:
			s := v.String()
			r.buf = binary.AppendUvarint(r.buf, uint64(len(s)))
			r.buf = append(r.buf, s...)
		case j == r.armJ:
			armVal = v.String()
		}
	}
	k := r.keys.id(r.buf)
	a := r.arms.Intern(armVal)
	r.event.set(len(r.key), y == 1)
	r.key = append(r.key, k)
	r.arm = append(r.arm, a)
	if r.spec.Weight != "" {
		r.w = append(r.w, w)
	}
	r.kept.set(int(read), true)
	r.rows++
	return nil
}

// presize makes room for about n episodes (an estimate from the first
// batch): appending millions of them one by one would copy the arrays
// several times over (slices grow by a quarter when large), which costs
// time and, at the peak, memory.
func (r *pairReader) presize(n int64) {
	n += n/16 + 1024 // an estimate: a little slack, appends grow beyond it
	if n > 1<<31 {
		return
	}
	r.key = slices.Grow(r.key, int(n)-len(r.key))
	r.arm = slices.Grow(r.arm, int(n)-len(r.arm))
	if r.spec.Weight != "" {
		r.w = slices.Grow(r.w, int(n)-len(r.w))
	}
}

// keyTable numbers distinct encoded keys (each pair-by column as
// uvarint(len) + value) in order of appearance: an open-addressing table
// on a 64-bit hash in which every hit is confirmed on the key's bytes, so
// keys whose hashes collide keep distinct ids. Unlike a Go map keyed by
// string, it allocates no string per key and grows by copying two flat
// arrays.
type keyTable struct {
	seed  maphash.Seed
	slots []uint32 // key id + 1, 0 for an empty slot; a power of two long
	hash  []uint64 // by key id
	buf   []byte   // key k is buf[end[k-1]:end[k]]
	end   []int
}

func newKeyTable() keyTable { return keyTable{seed: maphash.MakeSeed(), slots: make([]uint32, 1024)} }

// len is the number of distinct keys.
func (t *keyTable) len() int { return len(t.end) }

// id returns the id of key, adding it when new.
func (t *keyTable) id(key []byte) uint32 { return t.idHash(key, maphash.Bytes(t.seed, key)) }

// idHash is id for a key whose hash is h.
func (t *keyTable) idHash(key []byte, h uint64) uint32 {
	if 2*(len(t.end)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			k := uint32(len(t.end))
			t.buf = append(t.buf, key...)
			t.end = append(t.end, len(t.buf))
			t.hash = append(t.hash, h)
			t.slots[j] = k + 1
			return k
		}
		if k := s - 1; t.hash[k] == h && bytes.Equal(t.at(int(k)), key) {
			return k
		}
	}
}

// grow doubles the slots, placing the keys again by their stored hashes.
func (t *keyTable) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for k, h := range t.hash {
		j := h & mask
		for t.slots[j] != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = uint32(k) + 1
	}
}

// at returns the encoded key k.
func (t *keyTable) at(k int) []byte {
	lo := 0
	if k > 0 {
		lo = t.end[k-1]
	}
	return t.buf[lo:t.end[k]]
}

// release drops the lookup structure; the keys stay readable with at.
func (t *keyTable) release() { t.slots, t.hash = nil, nil }

// rankKeys numbers the distinct keys in the order frame.Builder gives
// them (each column's levels sorted as frame.Column.Sort, keys compared as
// the little-endian bytes of their codes) and replaces key ids by ranks.
func (r *pairReader) rankKeys() {
	r.keys.release()
	nk := r.keys.len()
	if r.nKey == 1 {
		r.rankOneColumn(nk)
		return
	}
	r.rankColumns(nk)
}

// rankColumns is rankKeys for any number of pair-by columns.
func (r *pairReader) rankColumns(nk int) {
	codes := make([]int32, nk*r.nKey)
	for j := range r.nKey {
		var levels frame.Dict
		for k := range nk {
			codes[k*r.nKey+j] = levels.InternBytes(keyField(r.keys.at(k), j))
		}
		col := &frame.Column{Name: r.names[j], Kind: r.kinds[j], Levels: levels.Texts()}
		remap := col.Sort()
		for k := range nk {
			codes[k*r.nKey+j] = remap[codes[k*r.nKey+j]]
		}
	}
	r.keys = keyTable{}
	bk := make([]string, nk)
	buf := make([]byte, 0, 4*r.nKey)
	for k := range nk {
		buf = buf[:0]
		for _, code := range codes[k*r.nKey : (k+1)*r.nKey] {
			buf = append(buf, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		bk[k] = string(buf)
	}
	rankKeys(r.key, bk)
}

// rankOneColumn is rankKeys for a single pair-by column: the keys are
// then distinct levels already, so they are sorted as levels without
// interning them, and a key's rank is its level's position.
func (r *pairReader) rankOneColumn(nk int) {
	col := &frame.Column{Name: r.names[0], Kind: r.kinds[0], Levels: make([]string, nk)}
	for k := range nk {
		// The levels point into the key table, which nothing writes any more
		// and which outlives col: no copy of millions of keys.
		f := keyField(r.keys.at(k), 0)
		col.Levels[k] = unsafe.String(unsafe.SliceData(f), len(f))
	}
	remap := col.Sort()
	// rankKeys orders keys by the little-endian bytes of their codes;
	// for one column that is the order of the byte-reversed codes.
	byLE := make([]uint32, nk)
	for c := range byLE {
		byLE[c] = bits.ReverseBytes32(uint32(c))
	}
	slices.Sort(byLE)
	rank := make([]uint32, nk)
	for i, rc := range byLE {
		rank[bits.ReverseBytes32(rc)] = uint32(i)
	}
	for i, k := range r.key {
		r.key[i] = rank[remap[k]]
	}
	r.keys = keyTable{}
}

// keyField returns the j-th column value of an encoded key.
func keyField(key []byte, j int) []byte {
	for {
		n, w := binary.Uvarint(key)
		if j == 0 {
			return key[w : w+int(n)]
		}
		key = key[w+int(n):]
		j--
	}
}

// idArena holds the episode ids of some episodes in one byte slice.
type idArena struct {
	slot  []int32 // by episode: index into end, or −1
	bytes []byte
	end   []int
}

func (a *idArena) get(i int) []byte {
	s := a.slot[i]
	if s < 0 {
		return nil // not needed: such episodes keep their row order
	}
	lo := 0
	if s > 0 {
		lo = a.end[s-1]
	}
	return a.bytes[lo:a.end[s]]
}

// pairing sorts the levels and indexes the episodes for comparisons of
// the base level with levels (default: every other level); ids(need) is
// called when some key and compared arm hold several episodes, and returns
// the ids of the episodes need marks (by episode index).
func (r *pairReader) pairing(base string, levels []string, ids func(need bitset) (*idArena, error)) (*pairing, error) {
	r.keyDict, r.keyOf = nil, nil // the scan is over
	nKeys := r.keys.len()
	if r.w != nil {
		// Weighted tables sum floats key by key: in frame.Builder's key
		// order, so that the sums are the row path's to the last bit.
		// Counts do not depend on the order of keys: unweighted, the ids
		// of first appearance serve, and no key is sorted.
		r.rankKeys()
	} else {
		r.keys = keyTable{}
	}
	armCol := &frame.Column{Name: r.names[r.armJ], Kind: r.kinds[r.armJ], Levels: r.arms.Texts()}
	remap := armCol.Sort()
	for i, a := range r.arm {
		r.arm[i] = remap[a]
	}
	n := len(r.key)
	pr := pairRows{n: n, nKeys: nKeys, key: r.key, arm: r.arm,
		event: func(i int) bool { return r.event.get(i) },
		cmpID: func(a, b int) int { return 0 }}
	if r.w != nil {
		pr.weight = func(i int) float64 { return r.w[i] }
	}
	seg, perm := sortPairRows(pr)
	// Only the episodes of a key and arm with several episodes and at
	// least one partner in a compared arm need their ids: the others are
	// never paired, or are paired alone.
	isOther := make([]bool, len(armCol.Levels))
	baseCode := int32(slices.Index(armCol.Levels, base))
	for i, l := range armCol.Levels {
		isOther[i] = int32(i) != baseCode && (len(levels) == 0 || slices.Contains(levels, l))
	}
	var need bitset
	several := false
	for k := range nKeys {
		rows := perm[seg[k]:seg[k+1]]
		if len(rows) < 2 || baseCode < 0 {
			continue
		}
		// rows are sorted by arm: each arm's episodes are one run.
		nBase, nOther := 0, 0
		for lo := 0; lo < len(rows); {
			a, hi := armRun(rows, r.arm, lo)
			switch {
			case a == baseCode:
				nBase = hi - lo
			case isOther[a]:
				nOther = max(nOther, hi-lo)
			}
			lo = hi
		}
		if max(nBase, nOther) < 2 {
			continue
		}
		for lo := 0; lo < len(rows); {
			a, hi := armRun(rows, r.arm, lo)
			partner := 0
			switch {
			case a == baseCode:
				partner = nOther
			case isOther[a]:
				partner = nBase
			}
			if hi-lo >= 2 && partner > 0 {
				several = true
				for _, i := range rows[lo:hi] {
					need.set(int(i), true)
				}
			}
			lo = hi
		}
	}
	if several {
		id, err := ids(need)
		if err != nil {
			return nil, err
		}
		pr.cmpID = func(a, b int) int { return bytes.Compare(id.get(a), id.get(b)) }
		for k := range nKeys {
			sortSegment(perm[seg[k]:seg[k+1]], pr)
		}
	}
	return pairingOf(armCol, pr, seg, perm), nil
}

// armRun returns the arm of rows[lo] and the end of its run.
func armRun(rows []int32, arm []int32, lo int) (int32, int) {
	a := arm[rows[lo]]
	hi := lo + 1
	for hi < len(rows) && arm[rows[hi]] == a {
		hi++
	}
	return a, hi
}

// addBatch adds the kept rows of a batch as add adds rows; pos, yPos
// and wPos are the batch columns of pr.names, the outcome and the weight.
// A batch of rows, or of a column of a kind not paired on codes, is added
// row by row.
func (r *pairReader) addBatch(bt *table.Batch, kept []int32, pos []int, yPos, wPos int) error {
	addRows := func(kept []int32) error {
		r.byRows += int64(len(kept))
		r.columns = bt.Vec != nil
		defer func() { r.columns = false }()
		for _, i := range kept {
			if err := r.add(bt.Row(int(i)), bt.First+int64(i)); err != nil {
				return bt.Place(int(i), err)
			}
		}
		return nil
	}
	b := bt.Vec
	if b == nil {
		return addRows(kept)
	}
	r.first = false // a source's batch has every column asked for
	vecs := make([]*ledger.Vec, len(pos))
	for j, p := range pos {
		if p < 0 {
			continue // episode_id, only checked
		}
		v := &b.Cols[p]
		if v.Valid != nil || v.Dict == nil && v.Offsets == nil && v.Bools == nil || j == r.armJ && v.Offsets != nil {
			return addRows(kept)
		}
		vecs[j] = v
	}
	for _, p := range []int{yPos, wPos} {
		if p >= 0 && b.Cols[p].Valid != nil {
			return addRows(kept)
		}
	}
	for j, v := range vecs {
		if v != nil && !r.seen[j] {
			r.seen[j] = true
			r.kinds[j] = v.Kind
		}
	}
	yc := &b.Cols[yPos]
	var wc *ledger.Vec
	if wPos >= 0 {
		wc = &b.Cols[wPos]
	}
	var arm levelCoder
	arm.reset(vecs[r.armJ], false)
	keyOf := r.keyCodes(vecs[0], bt.Lasting)
	if bt.First == 0 && b.Rows > 0 {
		r.presize(int64(len(kept)) * b.FileRows / int64(b.Rows))
	}
	for k, r32 := range kept {
		i := int(r32)
		w, wok := weightOf(wc, i)
		y, yok := outcomeOf(yc, i)
		if !wok || !yok {
			// The row path's message, or the row itself.
			if err := addRows(kept[k : k+1]); err != nil {
				return err
			}
			continue
		}
		var k uint32
		if keyOf != nil {
			c := vecs[0].Codes[i]
			if keyOf[c] < 0 {
				r.buf = appendText(r.buf[:0], vecs[0], i)
				keyOf[c] = int32(r.keys.id(r.buf))
			}
			k = uint32(keyOf[c])
		} else {
			r.buf = r.buf[:0]
			for j := range r.nKey {
				r.buf = appendText(r.buf, vecs[j], i)
			}
			k = r.keys.id(r.buf)
		}
		lc := arm.localCode(i)
		a := arm.local[lc]
		if a < 0 {
			a = r.arms.Intern(arm.text(lc))
			arm.local[lc] = a
		}
		r.event.set(len(r.key), y == 1)
		r.key = append(r.key, k)
		r.arm = append(r.arm, a)
		if r.spec.Weight != "" {
			r.w = append(r.w, w)
		}
		r.kept.set(int(bt.First)+i, true)
		r.rows++
	}
	return nil
}

// keyCodes returns the map from the codes of v, the batch's one key
// column, to key ids (nil when the key has several columns or v no
// dictionary): kept from the last batch when v carries the same lasting
// dictionary (table.Batch.Lasting), else all unseen.
func (r *pairReader) keyCodes(v *ledger.Vec, lasting bool) []int32 {
	if r.nKey != 1 || v.Dict == nil {
		return nil
	}
	if lasting && len(v.Dict) == len(r.keyDict) && unsafe.SliceData(v.Dict) == unsafe.SliceData(r.keyDict) {
		return r.keyOf
	}
	r.keyDict = nil
	if lasting {
		r.keyDict = v.Dict
	}
	r.keyOf = slices.Grow(r.keyOf[:0], len(v.Dict))[:len(v.Dict)]
	for c := range r.keyOf {
		r.keyOf[c] = -1
	}
	return r.keyOf
}

// appendText appends uvarint(len) and the text of row i of a string or
// boolean column, as pairReader encodes a key column.
func appendText(buf []byte, v *ledger.Vec, i int) []byte {
	switch {
	case v.Dict != nil:
		s := v.Dict[v.Codes[i]]
		return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
	case v.Offsets != nil:
		s := v.Bytes(i)
		return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
	}
	s := strconv.FormatBool(v.Bools[i])
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// scanPairs streams the query through Where into pr.
func (q *Query) scanPairs(pr *pairReader) (read int64, err error) {
	// Episode ids order the episodes of a key and arm only when there
	// are several, which a second pass reads; this one only checks them
	// (unique, valid), unless they are also a pair-by or arm column.
	var checked []string
	cols := slices.Clone(pr.spec.Columns)
	if slices.Index(pr.names, "episode_id") > pr.armJ {
		cols = slices.DeleteFunc(cols, func(c string) bool { return c == "episode_id" })
		checked = []string{"episode_id"}
	}
	cols = append(cols, pr.spec.Outcome)
	if pr.spec.Weight != "" {
		cols = append(cols, pr.spec.Weight)
	}
	cols = neededColumns(cols)
	pos := make([]int, len(pr.names))
	for j, c := range pr.names {
		pos[j] = slices.Index(cols, c)
	}
	yPos, wPos := slices.Index(cols, pr.spec.Outcome), slices.Index(cols, pr.spec.Weight)
	return q.scan(cols, checked, func(b *table.Batch, kept []int32) error {
		return pr.addBatch(b, kept, pos, yPos, wPos)
	})
}

// readPairing streams the query through --where into a pairing; errors
// and warnings are those of readFrame with pairSpec.
func (q *Query) readPairing(outcome, arm string, pairBy []string, weight, base string, levels []string, w *warnings) (*pairing, error) {
	pr := newPairReader(outcome, arm, pairBy, weight)
	read, err := q.scanPairs(pr)
	if err != nil {
		return nil, err
	}
	for _, c := range slices.Sorted(maps.Keys(pr.dropped)) {
		w.addf(WarnMissingRows, "%d row(s) with a missing %s left out", pr.dropped[c], c)
	}
	if len(pr.key) == 0 {
		return nil, fmt.Errorf("%s: no episode left after dropping rows with missing values", q.name())
	}
	if weight != "" {
		var sw float64
		for _, x := range pr.w {
			sw += x
		}
		if sw == 0 {
			return nil, fieldtext.New("Weight", "all weights (%s) are zero after {Where}; nothing can be estimated (use {Weight} none to ignore them)", weight)
		}
	}
	// The second pass reads only episode_id, for the episodes that share a
	// key and arm with others; episodes are matched to the first pass by
	// their position in the file.
	ids := func(need bitset) (*idArena, error) {
		src, err := q.source()
		if err != nil {
			return nil, err
		}
		count := 0
		for _, w := range need {
			count += bits.OnesCount64(w)
		}
		// The ids' lengths are not known before they are read: room for
		// the count, the bytes grow as they come.
		out := &idArena{slot: make([]int32, len(pr.key)), end: make([]int, 0, count)}
		row, wanted, changed := int32(-1), int32(0), false
		read2, err := src.IDs(func(i int64) bool {
			if !pr.kept.get(int(i)) {
				return false
			}
			row++
			if int(row) >= len(out.slot) {
				changed = true
				return false
			}
			out.slot[row] = -1
			if !need.get(int(row)) {
				return false
			}
			out.slot[row] = wanted
			wanted++
			return true
		}, func(id []byte) {
			out.bytes = append(out.bytes, id...)
			out.end = append(out.end, len(out.bytes))
		})
		if err != nil {
			return nil, err
		}
		if changed || read2 != read {
			return nil, fmt.Errorf("%s: the ledger changed while it was read (%d episodes, then %d)", q.name(), read, read2)
		}
		return out, nil
	}
	return pr.pairing(base, levels, ids)
}
