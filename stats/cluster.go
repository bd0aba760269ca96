package stats

import (
	"math"
	"slices"
)

// ICCANOVA returns the one-way ANOVA estimator of the intra-cluster
// correlation of y (binary or not) with clusters labelled by cluster:
//
//	ρ̂  = (MSB − MSW) / (MSB + (m₀ − 1)·MSW)
//	MSB = Σᵢ mᵢ(ȳᵢ − ȳ)² / (k − 1),  MSW = Σᵢ Σⱼ (yᵢⱼ − ȳᵢ)² / (N − k)
//	m₀  = (N − Σᵢ mᵢ²/N) / (k − 1)
//
// truncated at 0 (Ridout, Demétrio & Firth 1999, Biometrics 55:137–148;
// docs/methods.md, Clustered effective sample size). It is NaN when undefined: fewer than two clusters, no
// within-cluster degrees of freedom (N = k), or a zero denominator (for
// instance a constant outcome).
func ICCANOVA(y []float64, cluster []int) float64 {
	if len(y) != len(cluster) {
		panic("stats: length mismatch between values and clusters")
	}
	idx := clusterIndex(cluster)
	k := len(idx)
	n := len(y)
	if k < 2 || n <= k {
		return math.NaN()
	}
	var grand float64
	for _, v := range y {
		grand += v
	}
	grand /= float64(n)
	var ssb, ssw, sm2 float64
	for _, rows := range idx {
		m := float64(len(rows))
		var s float64
		for _, r := range rows {
			s += y[r]
		}
		mean := s / m
		for _, r := range rows {
			d := y[r] - mean
			ssw += d * d
		}
		ssb += m * (mean - grand) * (mean - grand)
		sm2 += m * m
	}
	msb := ssb / float64(k-1)
	msw := ssw / float64(n-k)
	m0 := (float64(n) - sm2/float64(n)) / float64(k-1)
	den := msb + (m0-1)*msw
	if !(den > 0) {
		return math.NaN()
	}
	return math.Max(0, (msb-msw)/den)
}

// ClusterNEff returns the effective sample size under the cluster design
// effect of Kish (1965),
//
//	n_eff = n / (1 + (m̄ − 1)ρ),
//
// with m̄ the mean cluster size (or m* = Σmᵢ²/Σmᵢ for unequal sizes, see
// ClusterMStar). NaN inputs or a non-positive design effect give NaN.
func ClusterNEff(n, mbar, rho float64) float64 {
	deff := 1 + (mbar-1)*rho
	if !(deff > 0) {
		return math.NaN()
	}
	return n / deff
}

// ClusterMStar returns m* = Σmᵢ²/Σmᵢ over the cluster sizes of the labels,
// the size to use in ClusterNEff when clusters are unequal (Kish 1965).
func ClusterMStar(cluster []int) float64 {
	var s, s2 float64
	for _, rows := range clusterIndex(cluster) {
		m := float64(len(rows))
		s += m
		s2 += m * m
	}
	if s == 0 {
		return math.NaN()
	}
	return s2 / s
}

// ClusterMean returns the mean cluster size m̄ = N/k.
func ClusterMean(cluster []int) float64 {
	k := len(clusterIndex(cluster))
	if k == 0 {
		return math.NaN()
	}
	return float64(len(cluster)) / float64(k)
}

// ClusterDeffWeighted returns the design effect of weighting and clustering
// combined (Gabler, Häder & Lahiri 1999, Survey Methodology 25:105–106; as
// PracTools deffCR):
//
//	deff = [n Σw²/(Σw)²] · [1 + (b* − 1)ρ],  b* = Σ_c (Σ_{j∈c} w_j)² / Σ_j w_j²
//
// with n the number of non-zero weights. NaN when Σw = 0.
func ClusterDeffWeighted(w []float64, cluster []int, rho float64) float64 {
	checkWeights(len(cluster), w)
	k := Pow2Scale(maxAbs(w)) // scaled units (scale.go)
	var sw2, b float64
	for _, rows := range clusterIndex(cluster) {
		var s float64
		for _, r := range rows {
			v := w[r] * k
			s += v
			sw2 += v * v
		}
		b += s * s
	}
	if sw2 == 0 {
		return math.NaN()
	}
	return KishDeff(w) * (1 + (b/sw2-1)*rho)
}

// DesignEstimate is a weighted proportion with its design-based
// (linearisation) variance under one-stage cluster sampling.
type DesignEstimate struct {
	P        float64 // p̂_w = Σwy/Σw
	Var      float64 // linearised variance v̂ of p̂_w
	NEff     float64 // p̂(1−p̂)/v̂; NaN when p̂ ∈ {0,1} (0/0), +Inf when v̂ = 0
	Clusters int     // number of clusters k with positive total weight
	DF       float64 // degrees of freedom k − 1 for the t quantile (TLevel)
	Warnings []string
}

// DesignProportion returns the weighted proportion of y and its
// linearisation (Taylor) variance with clusters as primary sampling units,
// with replacement, one stratum, as survey's svymean(~y, svydesign(ids=~cluster,
// weights=~w)) (survey R/multistage.R onestrat; Wolter 2007 ch. 6):
//
//	t_c   = Σ_{j∈c} w_j (y_j − p̂_w) / Σw
//	v̂     = k/(k−1) Σ_c t_c²
//	n_eff = p̂(1−p̂)/v̂
//
// The Wilson interval on (p̂, n_eff) with TLevel(level, k−1) in place of z
// is survey 4.5's svyciprop(method="wilson"). A nil w means unit weights.
// When p̂ ∈ {0,1}, n_eff is undefined (docs/methods.md, Design-based proportion): it is NaN and a
// warning says to fall back to Kish or the cluster design effect.
func DesignProportion(y, w []float64, cluster []int) DesignEstimate {
	if len(y) != len(cluster) {
		panic("stats: length mismatch between values and clusters")
	}
	w = unitWeights(w, len(y))
	checkWeights(len(y), w)
	est := DesignEstimate{P: WeightedProportion(y, w), Var: math.NaN(), NEff: math.NaN(), DF: math.NaN()}
	if math.IsNaN(est.P) {
		est.Warnings = append(est.Warnings, "all weights are zero")
		return est
	}
	ws := Pow2Scale(maxAbs(w)) // scaled units (scale.go)
	var sw float64
	for _, v := range w {
		sw += v * ws
	}
	var ss float64
	k := 0
	for _, rows := range clusterIndex(cluster) {
		var t, cw float64
		for _, r := range rows {
			t += w[r] * ws * (y[r] - est.P)
			cw += w[r] * ws
		}
		if cw == 0 {
			continue
		}
		t /= sw
		ss += t * t
		k++
	}
	est.Clusters = k
	if k < 2 {
		est.Warnings = append(est.Warnings, "fewer than two clusters: design variance undefined")
		return est
	}
	est.DF = float64(k - 1)
	est.Var = float64(k) / float64(k-1) * ss
	switch {
	case est.P == 0 || est.P == 1:
		est.Warnings = append(est.Warnings, "proportion is 0 or 1: design effective n undefined, fall back to Kish or the cluster design effect")
	case est.Var == 0:
		est.NEff = math.Inf(1)
		est.Warnings = append(est.Warnings, "design variance is zero: interval collapses to the point estimate")
	default:
		est.NEff = est.P * (1 - est.P) / est.Var
		if est.NEff < 1 {
			est.Warnings = append(est.Warnings, "design effective n below 1")
		}
	}
	return est
}

// clusterIndex groups row indices by label, in order of the sorted labels
// so results never depend on map iteration order. The groups share one
// backing array.
func clusterIndex(cluster []int) [][]int {
	pos := make(map[int]int)
	var labels []int
	for _, c := range cluster {
		if _, ok := pos[c]; !ok {
			pos[c] = 0
			labels = append(labels, c)
		}
	}
	slices.Sort(labels)
	for i, c := range labels {
		pos[c] = i
	}
	group := make([]int, len(cluster))
	count := make([]int, len(labels)+1)
	prev, prevG := 0, -1
	for r, c := range cluster {
		g := prevG
		if g < 0 || c != prev {
			g = pos[c]
			prev, prevG = c, g
		}
		group[r] = g
		count[g+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	flat := make([]int, len(cluster))
	next := slices.Clone(count[:len(labels)])
	for r, g := range group {
		flat[next[g]] = r
		next[g]++
	}
	idx := make([][]int, len(labels))
	for i := range idx {
		idx[i] = flat[count[i]:count[i+1]:count[i+1]]
	}
	return idx
}
