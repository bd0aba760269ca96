package stats

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// gramChunk is the number of rows the dense path handles at a time: each
// Gram entry of a block is one dot product of contiguous column pieces
// (SIMD in gonum's floats.Dot) that stay in cache.
const gramChunk = 512

// design wraps a model matrix with a compressed-row copy of its non-zero
// entries. Factor dummies make most model matrices sparse, and then Gram
// matrices, linear predictors and score sums cost O(non-zeros) per row.
type design struct {
	x      *mat.Dense // nil for sparse pattern designs built internally
	n, p   int
	sparse bool
	ptr    []int32 // row i's entries are idx/val[ptr[i]:ptr[i+1]]
	idx    []int32
	val    []float64
	xt     []float64 // dense designs: column-major copy, column j at xt[j*n:(j+1)*n]
	buf    []float64
}

func newDesign(x *mat.Dense) *design {
	n, p := x.Dims()
	raw := x.RawMatrix()
	nnz := 0
	for i := range n {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+p] {
			if v != 0 {
				nnz++
			}
		}
	}
	d := &design{x: x, n: n, p: p, ptr: make([]int32, n+1), idx: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
	for i := range n {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+p] {
			if v != 0 {
				d.idx = append(d.idx, int32(j))
				d.val = append(d.val, v)
			}
		}
		d.ptr[i+1] = int32(len(d.idx))
	}
	d.finish()
	return d
}

// finish decides the storage used by gram: compressed rows when at most
// 40% of the entries are non-zero, else a column-major copy.
func (d *design) finish() {
	d.sparse = len(d.idx) < d.n*d.p*2/5
	if d.sparse {
		return
	}
	raw := d.x.RawMatrix()
	d.xt = make([]float64, d.n*d.p)
	for i := range d.n {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d.p] {
			d.xt[j*d.n+i] = v
		}
	}
	d.buf = make([]float64, gramChunk*(d.p+1))
}

// dot returns x_i·β.
func (d *design) dot(i int, beta []float64) float64 {
	if !d.sparse {
		raw := d.x.RawMatrix()
		return floats.Dot(raw.Data[i*raw.Stride:i*raw.Stride+d.p], beta)
	}
	var s float64
	for a := d.ptr[i]; a < d.ptr[i+1]; a++ {
		s += d.val[a] * beta[d.idx[a]]
	}
	return s
}

// axpy adds c·x_i to dst.
func (d *design) axpy(i int, c float64, dst []float64) {
	for a := d.ptr[i]; a < d.ptr[i+1]; a++ {
		dst[d.idx[a]] += c * d.val[a]
	}
}

// gram sets g (upper triangle) to Σ_{i∈[lo,hi)} wᵢ xᵢxᵢᵀ and, when rhs is
// not nil, rhs to Σ wᵢzᵢxᵢ. Rows with w = 0 contribute nothing.
func (d *design) gram(lo, hi int, w, z []float64, g *mat.SymDense, rhs []float64) {
	p := d.p
	graw := g.RawSymmetric()
	for i := range p {
		row := graw.Data[i*graw.Stride : i*graw.Stride+p]
		for j := range row {
			row[j] = 0
		}
	}
	for i := range rhs {
		rhs[i] = 0
	}
	if d.sparse {
		if rhs != nil {
			for i := lo; i < hi; i++ {
				if w[i] != 0 {
					d.axpy(i, w[i]*z[i], rhs)
				}
			}
		}
		for i := lo; i < hi; i++ {
			wi := w[i]
			if wi == 0 {
				continue
			}
			s, e := d.ptr[i], d.ptr[i+1]
			for a := s; a < e; a++ {
				c := wi * d.val[a]
				row := graw.Data[int(d.idx[a])*graw.Stride:]
				for b := a; b < e; b++ {
					row[d.idx[b]] += c * d.val[b]
				}
			}
		}
		return
	}
	// Dense: per block of rows, weight each column (contiguous in xt) and
	// take dot products with the unweighted columns.
	n := d.n
	for start := lo; start < hi; start += gramChunk {
		m := min(start+gramChunk, hi) - start
		wb := w[start : start+m]
		if rhs != nil {
			wz := d.buf[p*gramChunk : p*gramChunk+m]
			floats.MulTo(wz, wb, z[start:start+m])
			for j := range p {
				rhs[j] += floats.Dot(wz, d.xt[j*n+start:j*n+start+m])
			}
		}
		for j := range p {
			wc := d.buf[j*gramChunk : j*gramChunk+m]
			floats.MulTo(wc, wb, d.xt[j*n+start:j*n+start+m])
		}
		for j := range p {
			wc := d.buf[j*gramChunk : j*gramChunk+m]
			row := graw.Data[j*graw.Stride : j*graw.Stride+p]
			for k := j; k < p; k++ {
				row[k] += floats.Dot(wc, d.xt[k*n+start:k*n+start+m])
			}
		}
	}
}

// aliased runs a Cholesky factorisation of the symmetric matrix g in
// column order and returns the columns whose pivot falls below tol times
// the column's own diagonal: those columns are (numerically) linear
// combinations of earlier ones. Zero diagonals count as aliased.
func aliased(g *mat.SymDense, tol float64) []int {
	p := g.SymmetricDim()
	l := make([]float64, p*p)
	var out []int
	for j := range p {
		d := g.At(j, j)
		orig := d
		for k := range j {
			d -= l[j*p+k] * l[j*p+k]
		}
		if !(orig > 0) || d <= tol*orig {
			out = append(out, j)
			continue // leave column j of l zero: it is dropped from later pivots
		}
		ljj := math.Sqrt(d)
		l[j*p+j] = ljj
		for i := j + 1; i < p; i++ {
			s := g.At(i, j)
			for k := range j {
				s -= l[i*p+k] * l[j*p+k]
			}
			l[i*p+j] = s / ljj
		}
	}
	return out
}

// symInverse returns the inverse of a positive definite matrix, or false.
func symInverse(g *mat.SymDense) (*mat.SymDense, *mat.Cholesky, bool) {
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return nil, nil, false
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, nil, false
	}
	return &inv, &ch, true
}
