package shapley

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// MaxGroups bounds k: Exact evaluates 2^k subsets.
const MaxGroups = 20

// ValueFunc returns the value of the model with the given factor groups
// (indices in 0..k−1, increasing; empty = the null model, usually 0).
type ValueFunc func(subset []int) (float64, error)

// Result is an exact Shapley decomposition.
type Result struct {
	Total  float64   // v(all groups) − v(∅)
	Values []float64 // φ_j, summing to Total
	Shares []float64 // 100·φ_j/Total (NaN when Total = 0)
	// Dominance[j][s] is the mean gain v(S∪{j}) − v(S) over subsets S of
	// the other groups with |S| = s (conditional dominance, Azen & Budescu
	// 2003); Values[j] is its mean over s (general dominance).
	Dominance [][]float64
	// Subsets[mask] is v at the subset whose bit j is set iff group j is in
	// it, as evaluated (cached, each once).
	Subsets []float64
}

// Exact computes the Shapley (1953) values of the k groups under v,
//
//	φ_j = Σ_{S ⊆ F∖{j}} |S|!(k−|S|−1)!/k! · [v(S∪{j}) − v(S)],
//
// which for pseudo-R² is the LMG / general dominance decomposition
// (Lindeman, Merenda & Gold 1980; Grömping 2006, JSS 17(1); domir's
// general dominance). Each of the 2^k subsets is evaluated once, in
// increasing bitmask order. The efficiency property Σφ_j = v(F) − v(∅) is
// checked to 1e-9 relative; a violation (only possible if v is not a
// function of the subset, e.g. non-deterministic) is an error, as is any
// error or non-finite value from v. k outside [1, MaxGroups] panics.
func Exact(k int, v ValueFunc) (*Result, error) {
	if k < 1 || k > MaxGroups {
		panic(fmt.Sprintf("shapley: number of groups %d outside [1, %d]", k, MaxGroups))
	}
	n := 1 << k
	vals := make([]float64, n)
	subset := make([]int, 0, k)
	for mask := range n {
		subset = subset[:0]
		for j := range k {
			if mask&(1<<j) != 0 {
				subset = append(subset, j)
			}
		}
		x, err := v(subset)
		if err != nil {
			return nil, fmt.Errorf("shapley: value of subset %v: %w", subset, err)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("shapley: value of subset %v is %v", subset, x)
		}
		vals[mask] = x
	}
	// count[s] = C(k−1, s) subsets of the others with size s.
	count := make([]float64, k)
	count[0] = 1
	for s := 1; s < k; s++ {
		count[s] = count[s-1] * float64(k-s) / float64(s)
	}
	res := &Result{Values: make([]float64, k), Shares: make([]float64, k), Dominance: make([][]float64, k), Subsets: vals}
	res.Total = vals[n-1] - vals[0]
	var sum float64
	for j := range k {
		dom := make([]float64, k)
		bit := 1 << j
		for mask := range n {
			if mask&bit != 0 {
				continue
			}
			dom[bits.OnesCount(uint(mask))] += vals[mask|bit] - vals[mask]
		}
		var phi float64
		for s := range k {
			dom[s] /= count[s]
			phi += dom[s]
		}
		phi /= float64(k)
		res.Dominance[j] = dom
		res.Values[j] = phi
		sum += phi
	}
	if math.Abs(sum-res.Total) > 1e-9*math.Max(1, math.Abs(res.Total)) {
		return nil, errors.New("shapley: efficiency check failed (values do not sum to the total)")
	}
	for j := range k {
		res.Shares[j] = 100 * res.Values[j] / res.Total
		if res.Total == 0 {
			res.Shares[j] = math.NaN()
		}
	}
	return res, nil
}
