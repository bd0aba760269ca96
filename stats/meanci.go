package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MeanCell is a pattern of N rows sharing one value Y (and, when
// clustered, one cluster): SumW = Σw and SumW2 = Σw² over its rows (N
// and N when unweighted).
type MeanCell struct {
	Y           float64
	N           int64
	SumW, SumW2 float64
	Cluster     int // the cluster's id; read only by a clustered MeanCI
}

// MeanEstimate is a (weighted) mean with its sandwich standard error and
// t interval.
type MeanEstimate struct {
	N        int64   // rows
	SumW     float64 // Σw
	Mean     float64 // Σw·y/Σw
	SD       float64 // √(Σw(y−ȳ)²/Σw · n/(n−1)): the sample SD when unweighted
	SE       float64 // the sandwich SE of Mean (HC1, or CR1 when clustered)
	Clusters int     // G: distinct clusters (n when not clustered)
	DF       float64 // degrees of freedom of the t: G − 1
	Lo, Hi   float64 // Mean ∓ t_{DF,(1+level)/2}·SE
}

// MeanCI estimates the weighted mean of cells, the intercept of a
// weighted least-squares fit y ~ 1, with the sandwich covariance of that
// fit (White 1980; Liang and Zeger 1986). With e = y − ȳ,
//
//	unclustered: SE² = n/(n−1) · Σᵢ wᵢ²eᵢ² / (Σw)²        (HC1)
//	clustered:   SE² = G/(G−1) · Σ_g (Σ_{i∈g} wᵢeᵢ)² / (Σw)²  (CR1)
//
// the values of R's sandwich::vcovHC(type = "HC1") and sandwich::vcovCL
// (type "HC1", cadjust; its (n−1)/(n−k) factor is 1 for an intercept)
// and of statsmodels' OLS/WLS cov_type "HC1" and "cluster". Unweighted
// and unclustered, SE = s/√n, the one-sample t interval of R's t.test.
// The interval is ȳ ∓ t·SE on G − 1 degrees of freedom (n − 1 without
// clusters), as Stata's and statsmodels' cluster conventions (Cameron and
// Miller 2015, §VI). Mean is NaN when Σw = 0; SD, SE, Lo and Hi are NaN
// when n < 2 (or G < 2 when clustered).
//
// The sums are taken with y and w scaled by powers of two (Pow2Scale), so
// values up to the largest double give a finite mean; an SD, SE or
// interval end beyond it is ±Inf (the caller warns). The cells' SumW and
// SumW2 must be representable: a caller summing tiny or huge weights
// scales them first (the engine's frames do).
func MeanCI(cells []MeanCell, clustered bool, level float64) MeanEstimate {
	var ym, wm float64
	for _, c := range cells {
		wm = math.Max(wm, math.Abs(c.SumW))
		if c.SumW != 0 {
			ym = math.Max(ym, math.Abs(c.Y))
		}
	}
	ys, ws := Pow2Scale(ym), Pow2Scale(wm)
	scaled := make([]MeanCell, len(cells))
	for i, c := range cells {
		scaled[i] = MeanCell{Y: c.Y * ys, N: c.N, SumW: c.SumW * ws, SumW2: c.SumW2 * ws * ws, Cluster: c.Cluster}
	}
	est := meanCI(scaled, clustered, level)
	est.SumW /= ws
	est.Mean /= ys
	est.SD /= ys
	est.SE /= ys
	est.Lo /= ys
	est.Hi /= ys
	return est
}

// meanCI is MeanCI on cells whose values and weights are of moderate
// magnitude.
func meanCI(cells []MeanCell, clustered bool, level float64) MeanEstimate {
	var est MeanEstimate
	var sw float64
	for _, c := range cells {
		est.N += c.N
		sw += c.SumW
	}
	est.SumW = sw
	est.Clusters = int(est.N)
	if clustered {
		seen := map[int]bool{}
		for _, c := range cells {
			seen[c.Cluster] = true
		}
		est.Clusters = len(seen)
	}
	nan := math.NaN()
	est.Mean, est.SD, est.SE, est.DF, est.Lo, est.Hi = nan, nan, nan, nan, nan, nan
	if sw == 0 {
		return est
	}
	var swy float64
	for _, c := range cells {
		swy += c.SumW * c.Y
	}
	mean := swy / sw
	// A second pass on the residuals for accuracy.
	var swe, swee, meat float64
	for _, c := range cells {
		e := c.Y - mean
		swe += c.SumW * e
		swee += c.SumW * e * e
		meat += c.SumW2 * e * e
	}
	mean += swe / sw // the one-step correction of the mean (Σwe is 0 but for rounding)
	est.Mean = mean
	n := float64(est.N)
	if est.N < 2 {
		return est
	}
	est.SD = math.Sqrt(swee / sw * n / (n - 1))
	g := n
	if clustered {
		score := map[int]float64{}
		var order []int
		for _, c := range cells {
			if _, ok := score[c.Cluster]; !ok {
				order = append(order, c.Cluster)
			}
			score[c.Cluster] += c.SumW * (c.Y - mean)
		}
		meat = 0
		for _, k := range order {
			meat += score[k] * score[k]
		}
		g = float64(len(order))
	}
	if g < 2 {
		return est
	}
	est.SE = math.Sqrt(g / (g - 1) * meat / (sw * sw))
	est.DF = g - 1
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: est.DF}.Quantile((1 + level) / 2)
	est.Lo, est.Hi = mean-t*est.SE, mean+t*est.SE
	return est
}
