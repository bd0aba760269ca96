package stats

import (
	"math"
	"testing"
)

// The weighted estimators do not depend on the weights' magnitude:
// weights of 1e-200 and 1e200 (whose squares underflow and overflow) give
// what weights of 1 give (issue 37, case 10).
func TestWeightScaleInvariance(t *testing.T) {
	w := []float64{1, 2, 3, 1, 2, 3, 1, 1, 2, 5}
	y := []float64{1, 0, 1, 1, 0, 0, 1, 0, 1, 1}
	cl := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}
	refESS, refDeff, refCD := KishESS(w), KishDeff(w), ClusterDeffWeighted(w, cl, 0.3)
	refP, refD := WeightedProportion(y, w), DesignProportion(y, w, cl)
	refM := MeanCI(meanCells(y, w), false, 0.95)
	for _, k := range []float64{1e-200, 1e-300, 1e200, 1e300, 0x1p-1070, 0.1} {
		v := make([]float64, len(w))
		for i := range w {
			v[i] = w[i] * k
		}
		d := DesignProportion(y, v, cl)
		m := MeanCI(meanCells(y, v), false, 0.95)
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"KishESS", KishESS(v), refESS}, {"KishDeff", KishDeff(v), refDeff}, {"ClusterDeffWeighted", ClusterDeffWeighted(v, cl, 0.3), refCD},
			{"WeightedProportion", WeightedProportion(y, v), refP}, {"DesignProportion.Var", d.Var, refD.Var}, {"DesignProportion.NEff", d.NEff, refD.NEff},
			// MeanCI's SE reads the cells' Σw², which a caller must give
			// representable (the engine sums weights in scaled units).
			{"MeanCI.Mean", m.Mean, refM.Mean}, {"MeanCI.SD", m.SD, refM.SD},
		} {
			tol := 1e-13
			if k < 1e-307 {
				tol = 1e-9 // subnormal weights carry fewer bits themselves
			}
			if !(math.Abs(c.got-c.want) <= tol*math.Abs(c.want)) {
				t.Errorf("weights ×%g: %s = %v, want %v", k, c.name, c.got, c.want)
			}
		}
	}
}

// meanCells is one MeanCell per value.
func meanCells(y, w []float64) []MeanCell {
	out := make([]MeanCell, len(y))
	for i := range y {
		out[i] = MeanCell{Y: y[i], N: 1, SumW: w[i], SumW2: w[i] * w[i]}
	}
	return out
}

// MeanCI of values near the largest double: finite where the sums
// overflow, and exactly the scaled result of moderate values.
func TestMeanCIHugeValues(t *testing.T) {
	y := []float64{1, 3, 2, 5, 4, 1.5}
	w := []float64{1, 1, 2, 1, 3, 1}
	ref := MeanCI(meanCells(y, w), false, 0.95)
	big := make([]float64, len(y))
	for i := range y {
		big[i] = y[i] * 0x1p1020 // up to 5·2^1020 ≈ 5.6e307
	}
	m := MeanCI(meanCells(big, w), false, 0.95)
	for _, c := range [][3]float64{{m.Mean, ref.Mean}, {m.SD, ref.SD}, {m.SE, ref.SE}, {m.Lo, ref.Lo}, {m.Hi, ref.Hi}} {
		if c[0] != c[1]*0x1p1020 {
			t.Errorf("huge values: %v, want exactly %v × 2^1020", c[0], c[1])
		}
	}
	if Pow2Scale(0) != 1 || Pow2Scale(math.Inf(1)) != 1 || Pow2Scale(1) != 1 || Pow2Scale(3) != 0.5 || Pow2Scale(0x1p-1074) != 0x1p1023 || Pow2Scale(math.MaxFloat64) != 0x1p-1023 {
		t.Errorf("Pow2Scale: %v %v %v %v %v %v", Pow2Scale(0), Pow2Scale(math.Inf(1)), Pow2Scale(1), Pow2Scale(3), Pow2Scale(0x1p-1074), Pow2Scale(math.MaxFloat64))
	}
}
