package analysis

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Consumers of batches: a source hands a query's rows out as columns
// (dictionary codes, booleans, numbers) where it can, and these count them
// on codes, Where evaluated once per distinct combination of codes. A
// batch of rows, or of columns a consumer does not count on codes, is
// added row by row, as is a row whose value is bad (the row path gives
// the message): results and messages are the row path's either way.

// weightOf returns row r's weight from column c (nil: unit weights); ok is
// false for a weight the row path rejects (frame.Builder's message).
func weightOf(c *ledger.Vec, r int) (float64, bool) {
	switch {
	case c == nil:
		return 1, true
	case c.Floats != nil:
		return c.Floats[r], true // checked finite and ≥ 0 by the scan
	case c.Ints != nil:
		return float64(c.Ints[r]), c.Ints[r] >= 0
	case c.Bools != nil:
		if c.Bools[r] {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// outcomeOf returns row r's 0/1 outcome from column c; ok is false for a
// value the row path rejects.
func outcomeOf(c *ledger.Vec, r int) (float64, bool) {
	switch {
	case c.Bools != nil:
		if c.Bools[r] {
			return 1, true
		}
		return 0, true
	case c.Ints != nil:
		switch c.Ints[r] {
		case 0:
			return 0, true
		case 1:
			return 1, true
		}
	}
	return 0, false
}

// levelCoder interns a column's values of one batch into a frame column's
// levels, each distinct code once; or, for a column whose dictionary the
// frame column shares (frame.Builder.Share: a held Data's), takes the
// batch's codes as they are.
type levelCoder struct {
	c      *ledger.Vec
	shared bool    // the codes are the frame column's: local is unused
	local  []int32 // dictionary code → level code, −1 not yet interned
	// A numeric column's local codes are its distinct values in the
	// batch (by their bits: -0 and 0 are distinct levels, as their texts
	// are), numbered as they come.
	numCode map[uint64]int32
	nums    []uint64
}

// reset binds the coder to column c of a new batch; shared says that c's
// dictionary is the frame column's.
func (l *levelCoder) reset(c *ledger.Vec, shared bool) {
	l.c, l.shared = c, shared
	if shared {
		return
	}
	n := 2
	switch {
	case c.Dict != nil:
		n = len(c.Dict)
	case c.Ints != nil || c.Floats != nil:
		n = 0
		if l.numCode == nil {
			l.numCode = map[uint64]int32{}
		}
		clear(l.numCode)
		l.nums = l.nums[:0]
	}
	if cap(l.local) < n {
		l.local = make([]int32, n)
	}
	l.local = l.local[:n]
	for i := range l.local {
		l.local[i] = -1
	}
}

// codes is the number of local codes (so far, for a numeric column).
func (l *levelCoder) codes() int {
	if l.shared {
		return len(l.c.Dict)
	}
	return len(l.local)
}

// localCode returns row r's code in the batch (dictionary code, 0/1, or
// a number's position in order of appearance).
func (l *levelCoder) localCode(r int) int {
	if l.c.Dict != nil {
		return int(l.c.Codes[r])
	}
	if l.c.Ints != nil || l.c.Floats != nil {
		var x uint64
		if l.c.Ints != nil {
			x = uint64(l.c.Ints[r])
		} else {
			x = math.Float64bits(l.c.Floats[r])
		}
		k, ok := l.numCode[x]
		if !ok {
			k = int32(len(l.nums))
			l.numCode[x] = k
			l.nums = append(l.nums, x)
			l.local = append(l.local, -1)
		}
		return int(k)
	}
	if l.c.Bools[r] {
		return 1
	}
	return 0
}

// text returns the level text of local code k.
func (l *levelCoder) text(k int) string {
	if l.c.Dict != nil {
		return l.c.Dict[k]
	}
	// As ledger.Value.String.
	if l.c.Ints != nil {
		return strconv.FormatInt(int64(l.nums[k]), 10)
	}
	if l.c.Floats != nil {
		return strconv.FormatFloat(math.Float64frombits(l.nums[k]), 'g', -1, 64)
	}
	return strconv.FormatBool(k == 1)
}

// codable reports whether column c can be counted on codes.
func codable(c *ledger.Vec) bool {
	return c.Valid == nil && (c.Dict != nil || c.Bools != nil || c.Ints != nil || c.Floats != nil)
}

// buildFrame streams the query through Where into a frame built by spec.
func (q *Query) buildFrame(spec frame.Spec) (*frame.Frame, error) {
	cols, f := newFrameFeed(spec)
	if _, err := q.scan(cols, nil, f.add); err != nil {
		return nil, err
	}
	return f.b.Frame(), nil
}

// newFrameFeed returns the columns a frame of spec reads and its feed.
func newFrameFeed(spec frame.Spec) ([]string, *frameFeed) {
	cols := slices.Clone(spec.Columns)
	if spec.Outcome != "" {
		cols = append(cols, spec.Outcome)
	}
	if spec.Weight != "" {
		cols = append(cols, spec.Weight)
	}
	cols = neededColumns(cols)
	f := &frameFeed{spec: spec, b: frame.NewBuilder(spec), pos: make([]int, len(spec.Columns)),
		coders: make([]levelCoder, len(spec.Columns)), codes: make([]int32, len(spec.Columns))}
	for j, c := range spec.Columns {
		f.pos[j] = slices.Index(cols, c)
	}
	f.yPos, f.wPos = slices.Index(cols, spec.Outcome), slices.Index(cols, spec.Weight)
	return cols, f
}

// frameFeed adds batches to a frame.Builder.
type frameFeed struct {
	spec       frame.Spec
	b          *frame.Builder
	pos        []int // batch column of each spec column
	yPos, wPos int   // batch column of the outcome and weight, or −1
	coders     []levelCoder
	codes      []int32
	cellOf     []int32 // by combination of batch codes, when StableCells
	byRows     int64   // rows added as rows (tests check the codes' path)
}

// addRow adds row r of bt as the row path does.
func (f *frameFeed) addRow(bt *table.Batch, r int) error {
	f.byRows++
	return bt.Place(r, f.b.Add(bt.Row(r)))
}

// add adds the kept rows of a batch.
func (f *frameFeed) add(bt *table.Batch, kept []int32) error {
	if !f.codable(bt.Vec) {
		for _, r := range kept {
			if err := f.addRow(bt, int(r)); err != nil {
				return err
			}
		}
		return nil
	}
	b, coders, codes := f.b, f.coders, f.codes
	size := 1
	for j, p := range f.pos {
		c := &bt.Vec.Cols[p]
		coders[j].reset(c, c.Dict != nil && bt.Lasting && b.Share(j, c.Kind, c.Dict))
		if c.Ints != nil || c.Floats != nil {
			size = -1 // codes known only as rows come: no memo
		}
		if size > 0 {
			size *= coders[j].codes()
			if size > 1<<16 {
				size = -1
			}
		}
	}
	if !b.StableCells() {
		size = -1
	}
	if size > 0 {
		if cap(f.cellOf) < size {
			f.cellOf = make([]int32, size)
		}
		f.cellOf = f.cellOf[:size]
		for i := range f.cellOf {
			f.cellOf[i] = -1
		}
	}
	cellOf := f.cellOf
	var yc, wc *ledger.Vec
	if f.yPos >= 0 {
		yc = &bt.Vec.Cols[f.yPos]
	}
	if f.wPos >= 0 {
		wc = &bt.Vec.Cols[f.wPos]
	}
	for _, r32 := range kept {
		r := int(r32)
		y, ok := 0.0, true
		if yc != nil {
			y, ok = outcomeOf(yc, r)
		}
		w, wok := weightOf(wc, r)
		if !ok || !wok {
			if err := f.addRow(bt, r); err != nil { // the row path's message
				return err
			}
			continue
		}
		idx := 0
		if size > 0 {
			for j := range coders {
				k := coders[j].localCode(r)
				idx = idx*coders[j].codes() + k
			}
			if cellOf[idx] >= 0 {
				// Rows of the same codes have the same values: checked.
				b.AddToCell(cellOf[idx], y, w)
				continue
			}
		}
		if f.spec.Check != nil {
			if err := f.spec.Check(bt.Row(r)); err != nil {
				return bt.Place(r, err)
			}
		}
		for j := range coders {
			l := &coders[j]
			if l.shared {
				codes[j] = l.c.Codes[r]
				continue
			}
			k := l.localCode(r)
			if l.local[k] < 0 {
				l.local[k] = b.Intern(j, l.c.Kind, l.text(k))
			}
			codes[j] = l.local[k]
		}
		cell := b.AddCoded(codes, y, w)
		if size > 0 {
			cellOf[idx] = cell
		}
	}
	return nil
}

// codable reports whether the frame's columns of batch v can be counted
// on codes (nil: a batch of rows).
func (f *frameFeed) codable(v *ledger.Batch) bool {
	if v == nil {
		return false
	}
	for _, p := range f.pos {
		if !codable(&v.Cols[p]) {
			return false
		}
	}
	for _, p := range []int{f.yPos, f.wPos} {
		if p >= 0 && v.Cols[p].Valid != nil {
			return false
		}
	}
	return true
}

// readFrame streams the query through --where into a frame built by spec.
// It returns an error naming the input when nothing is left.
func (q *Query) readFrame(spec frame.Spec, w *warnings) (*frame.Frame, error) {
	if b, ok := q.Source.(*builtSource); ok {
		return q.builtFrame(b.fr, spec)
	}
	if r, ok := q.Source.(*resampled); ok {
		return r.fr, nil // a bootstrap replicate of a frame read before
	}
	fr, err := q.buildFrame(spec)
	if err != nil {
		return nil, err
	}
	for _, c := range slices.Sorted(maps.Keys(fr.Dropped)) {
		w.addf(WarnMissingRows, "%d row(s) with a missing %s left out", fr.Dropped[c], c)
	}
	if fr.Len() == 0 {
		return nil, fmt.Errorf("%s: no episode left after dropping rows with missing values", q.name())
	}
	return fr, nil
}

// builtFrame is fr, built by the caller (Built), as the frame of spec: it
// must carry the spec's columns, its outcome and, when the spec is
// weighted, weights.
func (q *Query) builtFrame(fr *frame.Frame, spec frame.Spec) (*frame.Frame, error) {
	switch {
	case q.Where != "":
		return nil, fieldErr("Where", "{Where} %q cannot filter a built frame (leave the rows out when building it)", q.Where)
	case !spec.Collapse || spec.CollapseLimit != 0:
		return nil, errBuilt()
	case spec.Outcome != "" && !fr.HasOutcome:
		return nil, specf("the built frame has no outcome (build it with Spec.Outcome %s)", spec.Outcome)
	case spec.Weight != "" && !fr.HasWeight:
		return nil, specf("the built frame has no weights (build it with Spec.Weight %s)", spec.Weight)
	}
	for _, c := range spec.Columns {
		if fr.Col(c) == nil {
			var have []string
			for _, col := range fr.Cols {
				have = append(have, col.Name)
			}
			return nil, &SpecError{Err: fmt.Errorf("the built frame: %w", &frame.UnknownColumnError{Name: c, Similar: frame.Similar(c, have)})}
		}
	}
	if fr.Len() == 0 {
		return nil, errors.New("the built frame has no rows")
	}
	if err := frame.CheckRows(fr, spec.Check); err != nil {
		return nil, fmt.Errorf("the built frame: %w", err)
	}
	return fr, nil
}

// checkWeights fails when every weight is zero (nothing can be estimated).
func checkWeights(fr *frame.Frame, col string) error {
	if !fr.HasWeight {
		return nil
	}
	if fr.Total().SumW == 0 {
		return fieldtext.New("Weight", "all weights (%s) are zero after {Where}; nothing can be estimated (use {Weight} none to ignore them)", col)
	}
	return nil
}

// checkOutcome fails when the outcome is constant: no model can be fitted.
func checkOutcome(fr *frame.Frame, outcome string) error {
	t := fr.Total()
	switch t.Events {
	case 0:
		return fieldtext.New("Outcome", "outcome %s is always false (0 of %d rows after {Where}); nothing to fit", outcome, t.N)
	case t.N:
		return fieldtext.New("Outcome", "outcome %s is always true (%d of %d rows after {Where}); nothing to fit", outcome, t.N, t.N)
	}
	return nil
}
