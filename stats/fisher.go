package stats

import (
	"errors"
	"maps"
	"math"
	"slices"
)

// ErrFisherTooLarge is returned by FisherExact when the table's margins
// admit more tables than it enumerates.
var ErrFisherTooLarge = errors.New("stats: Fisher's exact test: too many tables with these margins to enumerate")

// fisherMaxTables bounds the distinct partial tables of a stage of
// FisherExact's network (its memory: about 100 bytes each).
const fisherMaxTables = 5_000_000

// fisherRelErr is R's tolerance for tables as probable as the observed
// one (fisher.test: relErr <- 1 + 10^(-7)).
const fisherRelErr = 1 + 1e-7

// FisherExact returns the two-sided p-value of Fisher's exact test of
// independence of the rows and columns of an r×c table of counts: for
// 2×2 Fisher's (1935), for larger tables Freeman and Halton's extension
// (Freeman & Halton 1951, Biometrika 38:141–149). Given both margins, a
// table y has the multivariate hypergeometric probability
//
//	P(y) = Π_i r_i! · Π_j c_j! / (n! · Π_ij y_ij!),
//
// and p is the total probability of the tables with the observed margins
// that are no more probable than the observed table x:
//
//	p = Σ_{y: P(y) ≤ P(x)·(1 + 10⁻⁷)} P(y),
//
// as R's fisher.test computes it (the tolerance is R's, so that tables
// tied with x in exact arithmetic count whatever the rounding). Rows and
// columns whose total is 0 are dropped; with fewer than two of either left,
// every table with the margins is x and p = 1. The sum is exact, by Mehta
// and Patel's network algorithm (fisherNetwork), as R's FEXACT; a table
// whose network outgrows 5·10⁶ partial tables in a stage gives NaN and
// ErrFisherTooLarge rather than an approximation. A ragged table or a
// negative count is a caller mistake and panics.
func FisherExact(table [][]int) (float64, error) { return fisherExact(table, fisherMaxTables) }

// fisherExact is FisherExact with a bound on the network's pasts per stage.
func fisherExact(table [][]int, maxEntries int) (float64, error) {
	var rows, cols []int
	for i, r := range table {
		if len(r) != len(table[0]) {
			panic("stats: FisherExact: ragged table")
		}
		t := 0
		for _, x := range r {
			if x < 0 {
				panic("stats: FisherExact: negative count")
			}
			t += x
		}
		if t > 0 {
			rows = append(rows, i)
		}
	}
	if len(table) > 0 {
		for j := range table[0] {
			t := 0
			for _, r := range table {
				t += r[j]
			}
			if t > 0 {
				cols = append(cols, j)
			}
		}
	}
	if len(rows) < 2 || len(cols) < 2 {
		return 1, nil
	}
	// The observed table without its empty rows and columns, with the
	// margins.
	nr, nc := len(rows), len(cols)
	x := make([][]int, nr)
	rowSum := make([]int, nr)
	colSum := make([]int, nc)
	n := 0
	for a, i := range rows {
		x[a] = make([]int, nc)
		for b, j := range cols {
			v := table[i][j]
			x[a][b] = v
			rowSum[a] += v
			colSum[b] += v
			n += v
		}
	}
	lf := make([]float64, n+1) // log k!
	for k := 2; k <= n; k++ {
		lf[k] = lf[k-1] + math.Log(float64(k))
	}
	// log P(y) = base − Σ log y_ij!
	base := -lf[n]
	for _, r := range rowSum {
		base += lf[r]
	}
	for _, c := range colSum {
		base += lf[c]
	}
	obs := base
	for _, r := range x {
		for _, v := range r {
			obs -= lf[v]
		}
	}
	p, ok := fisherNetwork(lf, rowSum, colSum, base, obs+math.Log(fisherRelErr), maxEntries)
	if !ok {
		return math.NaN(), ErrFisherTooLarge
	}
	return math.Min(1, p), nil
}

// fisherNetwork sums the probabilities of the tables with margins rowSum
// and colSum whose log-probability is at most limit, by Mehta and Patel's
// network algorithm (J Am Stat Assoc 78:427–434, 1983). A node is a stage
// (the columns placed so far) and the multiset of the row totals still to
// place, which fixes every completion; it holds the distinct
// log-probabilities of the partial tables reaching it ("pasts", merged
// when they agree to 1e-9, far inside R's tolerance) with how many partial
// tables have each. A past whose every completion is at most limit adds
// them all at once (their sum is a ratio of factorials); one whose every
// completion is above it is dropped; only the others go on to the next
// stage. Whether every completion is in or out follows from the node's
// most and least probable completions (its longest and shortest paths to
// the end), memoised by node. ok is false when a stage outgrows
// maxEntries pasts.
func fisherNetwork(lf []float64, rowSum, colSum []int, base, limit float64, maxEntries int) (p float64, ok bool) {
	type past struct {
		lp float64 // log-probability of the partial table (Σ −log x!)
		w  float64 // how many partial tables have it
	}
	type node struct {
		rem   []int // row totals left, ascending
		pasts map[int64]*past
	}
	key := func(rem []int) string {
		b := make([]byte, 0, 4*len(rem))
		for _, r := range rem {
			b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
		}
		return string(b)
	}
	// The least and most probable completions of rem by the columns from
	// j on (Σ −log x!): the shortest and longest paths from a node to the
	// end of the network, memoised by node.
	memo := make([]map[string][2]float64, len(colSum)+1)
	var paths func(j int, rem []int) (lo, hi float64)
	paths = func(j int, rem []int) (lo, hi float64) {
		if j == len(colSum) {
			return 0, 0
		}
		k := key(rem)
		if memo[j] == nil {
			memo[j] = map[string][2]float64{}
		}
		if v, ok := memo[j][k]; ok {
			return v[0], v[1]
		}
		lo, hi = math.Inf(1), math.Inf(-1)
		eachSplit(rem, colSum[j], func(x []int) {
			term := 0.0
			child := make([]int, len(rem))
			for r := range rem {
				term -= lf[x[r]]
				child[r] = rem[r] - x[r]
			}
			slices.Sort(child)
			l, h := paths(j+1, child)
			lo, hi = min(lo, term+l), max(hi, term+h)
		})
		memo[j][k] = [2]float64{lo, hi}
		return lo, hi
	}
	start := slices.Clone(rowSum)
	slices.Sort(start)
	stage := map[string]*node{key(start): {rem: start, pasts: map[int64]*past{0: {0, 1}}}}
	for j := 0; len(stage) > 0; j++ {
		next := map[string]*node{}
		entries := 0
		// Nodes and pasts in a fixed order, so that the sum does not depend
		// on map order.
		for _, k := range slices.Sorted(maps.Keys(stage)) {
			nd := stage[k]
			n := 0
			for _, r := range nd.rem {
				n += r
			}
			// log Σ over the completions of Π 1/x! = log n!/(Π r! Π c!).
			lsum := lf[n]
			for _, r := range nd.rem {
				lsum -= lf[r]
			}
			for _, c := range colSum[j:] {
				lsum -= lf[c]
			}
			lo, hi := paths(j, nd.rem)
			var open []*past
			for _, pk := range slices.Sorted(maps.Keys(nd.pasts)) {
				e := nd.pasts[pk]
				switch t := base + e.lp; {
				case t+hi <= limit:
					p += e.w * math.Exp(t+lsum)
				case t+lo <= limit:
					open = append(open, e)
				}
			}
			if len(open) == 0 || j == len(colSum) {
				continue
			}
			full := false
			eachSplit(nd.rem, colSum[j], func(x []int) {
				if full {
					return
				}
				term := 0.0
				rem := make([]int, len(x))
				for r := range rem {
					term -= lf[x[r]]
					rem[r] = nd.rem[r] - x[r]
				}
				slices.Sort(rem)
				nk := key(rem)
				to := next[nk]
				if to == nil {
					to = &node{rem: rem, pasts: map[int64]*past{}}
					next[nk] = to
				}
				for _, from := range open {
					lp := from.lp + term
					q := int64(math.Round(lp * 1e9))
					if e := to.pasts[q]; e != nil {
						e.w += from.w
					} else {
						to.pasts[q] = &past{lp, from.w}
						if entries++; entries > maxEntries {
							full = true
							return
						}
					}
				}
			})
			if full {
				return 0, false
			}
		}
		stage = next
	}
	return p, true
}

// eachSplit calls f with every split x of c into len(caps) parts with
// 0 ≤ x_i ≤ caps[i] (x is reused between calls).
func eachSplit(caps []int, c int, f func(x []int)) {
	x := make([]int, len(caps))
	below := make([]int, len(caps)+1) // below[i] = Σ caps[i:]
	for i := len(caps) - 1; i >= 0; i-- {
		below[i] = below[i+1] + caps[i]
	}
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == len(caps)-1 {
			if left <= caps[i] {
				x[i] = left
				f(x)
			}
			return
		}
		for v := max(0, left-below[i+1]); v <= min(left, caps[i]); v++ {
			x[i] = v
			rec(i+1, left-v)
		}
	}
	if len(caps) > 0 {
		rec(0, c)
	}
}
