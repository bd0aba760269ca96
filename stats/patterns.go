package stats

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// patternSet assigns ids to distinct (group, row) keys, rows given by their
// non-zero entries (column indices and values, compared bit for bit). It
// hashes with FNV-1a and resolves collisions by comparing contents, so ids
// are given in order of first appearance and never depend on map order.
type patternSet struct {
	noPool bool // every row is its own pattern (no hashing)
	index  map[uint64]int
	next   []int // chain of patterns sharing a hash, −1 terminated
	group  []int
	ptr    []int32
	idx    []int32
	val    []float64
}

// newPatternSet sizes the set for up to capacity patterns holding nnz
// non-zero entries in all.
func newPatternSet(capacity, nnz int) *patternSet {
	return &patternSet{index: make(map[uint64]int, capacity), next: make([]int, 0, capacity),
		group: make([]int, 0, capacity), ptr: append(make([]int32, 0, capacity+1), 0),
		idx: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
}

func (s *patternSet) len() int { return len(s.group) }

// id returns the pattern id of (group, row), adding it when new.
func (s *patternSet) id(group int, idx []int32, val []float64) int {
	if s.noPool {
		s.group = append(s.group, group)
		s.idx = append(s.idx, idx...)
		s.val = append(s.val, val...)
		s.ptr = append(s.ptr, int32(len(s.idx)))
		return len(s.group) - 1
	}
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h = (h ^ uint64(group)) * prime
	for a, v := range val {
		h = (h ^ uint64(idx[a])) * prime
		h = (h ^ math.Float64bits(v)) * prime
		h ^= h >> 29
	}
	first, ok := s.index[h]
	if ok {
		for k := first; k >= 0; k = s.next[k] {
			if s.group[k] == group && s.equal(k, idx, val) {
				return k
			}
		}
	}
	k := len(s.group)
	s.group = append(s.group, group)
	s.idx = append(s.idx, idx...)
	s.val = append(s.val, val...)
	s.ptr = append(s.ptr, int32(len(s.idx)))
	if ok {
		s.next = append(s.next, s.next[first])
		s.next[first] = k
	} else {
		s.next = append(s.next, -1)
		s.index[h] = k
	}
	return k
}

func (s *patternSet) equal(k int, idx []int32, val []float64) bool {
	a, b := s.ptr[k], s.ptr[k+1]
	if int(b-a) != len(idx) {
		return false
	}
	for i := range idx {
		if s.idx[int(a)+i] != idx[i] || math.Float64bits(s.val[int(a)+i]) != math.Float64bits(val[i]) {
			return false
		}
	}
	return true
}

// design returns the patterns as a model matrix with p columns; the dense
// matrix x is built only when wanted or when the patterns are dense.
func (s *patternSet) design(p int, wantDense bool) *design {
	n := s.len()
	d := &design{n: n, p: p, ptr: s.ptr, idx: s.idx, val: s.val}
	if wantDense || len(d.idx) >= n*p*2/5 {
		d.x = mat.NewDense(max(n, 1), p, nil)
		raw := d.x.RawMatrix()
		for k := range n {
			for a := s.ptr[k]; a < s.ptr[k+1]; a++ {
				raw.Data[k*raw.Stride+int(s.idx[a])] = s.val[a]
			}
		}
	}
	d.finish()
	return d
}

// row returns the non-zero entries of row i.
func (d *design) row(i int) ([]int32, []float64) {
	return d.idx[d.ptr[i]:d.ptr[i+1]], d.val[d.ptr[i]:d.ptr[i+1]]
}
