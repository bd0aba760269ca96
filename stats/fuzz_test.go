package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// fuzzWeights decodes data into up to 64 rows: a weight (the bits of eight
// bytes, made finite and ≥ 0), a 0/1 outcome, a value and a cluster.
func fuzzWeights(data []byte) (w, y, v []float64, cl []int) {
	for len(data) >= 10 && len(w) < 64 {
		x := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(data)))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 1
		}
		w = append(w, x)
		y = append(y, float64(data[8]&1))
		v = append(v, float64(int8(data[9]))*math.Ldexp(1, int(data[8]>>1)-64))
		cl = append(cl, int(data[9]%5))
		data = data[10:]
	}
	return w, y, v, cl
}

// FuzzWeightedEstimators: the weighted estimators never panic on weights
// of any magnitude, their results stay in range, and shifting every
// weight by a power of two changes nothing, bit for bit, while the shifted
// weights stay normal (issue 37, case 10: they depended on the weights'
// magnitude).
//
//	go test ./stats/ -run '^$' -fuzz FuzzWeightedEstimators -fuzztime 5m
func FuzzWeightedEstimators(f *testing.F) {
	row := func(w float64, y, v byte) []byte {
		b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(w))
		return append(b, y, v)
	}
	var seed []byte
	for i, w := range []float64{1, 2, 3, 1e-200, 1e200, 0, 5, 1e-310, 7.5} {
		seed = append(seed, row(w, byte(i), byte(i*37))...)
	}
	f.Add(seed, int16(0))
	f.Add(seed, int16(600))
	f.Add(seed[:30], int16(-700))
	f.Add(row(1e308, 1, 255), int16(3))
	f.Fuzz(func(t *testing.T, data []byte, shift int16) {
		w, y, v, cl := fuzzWeights(data)
		if len(w) == 0 {
			return
		}
		ess, deff, p := KishESS(w), KishDeff(w), WeightedProportion(y, w)
		cd := ClusterDeffWeighted(w, cl, 0.2)
		dp := DesignProportion(y, w, cl)
		cells := make([]MeanCell, len(w))
		for i := range w {
			cells[i] = MeanCell{Y: v[i], N: 1, SumW: w[i], SumW2: w[i] * w[i], Cluster: cl[i]}
		}
		m := MeanCI(cells, false, 0.95)
		mc := MeanCI(cells, true, 0.95)
		var sw float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, x := range w {
			sw += x
			if x > 0 {
				lo, hi = math.Min(lo, v[i]), math.Max(hi, v[i])
			}
		}
		if sw > 0 && !math.IsInf(sw, 0) {
			n := float64(len(w))
			if !(ess >= 1-1e-9 && ess <= n*(1+1e-9)) {
				t.Errorf("KishESS %v outside [1, %v] for %v", ess, n, w)
			}
			if !(p >= 0 && p <= 1) {
				t.Errorf("WeightedProportion %v", p)
			}
			if !(m.Mean >= lo-1e-9*math.Abs(lo) && m.Mean <= hi+1e-9*math.Abs(hi)) {
				t.Errorf("MeanCI mean %v outside [%v, %v]", m.Mean, lo, hi)
			}
			if m.SD < 0 || math.IsNaN(m.SD) && m.N >= 2 {
				t.Errorf("MeanCI SD %v over %d rows", m.SD, m.N)
			}
		}
		// The same weights shifted by 2^k, all of them normal numbers
		// before and after: every estimate keeps its bits.
		k := int(shift % 900)
		wmin, wmax := math.Inf(1), 0.0
		for _, x := range w {
			if x > 0 {
				wmin, wmax = math.Min(wmin, x), math.Max(wmax, x)
			}
		}
		if wmax == 0 || wmin < 0x1p-1022 || math.Ldexp(wmin, k) < 0x1p-1022 || math.Ldexp(wmax, k) > 0x1p1000 {
			return
		}
		ws := make([]float64, len(w))
		for i, x := range w {
			ws[i] = math.Ldexp(x, k)
		}
		same := func(name string, a, b float64) {
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("weights ×2^%d: %s %v, was %v", k, name, b, a)
			}
		}
		same("KishESS", ess, KishESS(ws))
		same("KishDeff", deff, KishDeff(ws))
		same("WeightedProportion", p, WeightedProportion(y, ws))
		same("ClusterDeffWeighted", cd, ClusterDeffWeighted(ws, cl, 0.2))
		d2 := DesignProportion(y, ws, cl)
		same("DesignProportion.Var", dp.Var, d2.Var)
		same("DesignProportion.NEff", dp.NEff, d2.NEff)
		for i := range cells {
			cells[i].SumW, cells[i].SumW2 = ws[i], ws[i]*ws[i]
		}
		m2, mc2 := MeanCI(cells, false, 0.95), MeanCI(cells, true, 0.95)
		same("MeanCI.Mean", m.Mean, m2.Mean)
		same("MeanCI.SD", m.SD, m2.SD)
		if !math.IsInf(m.SumW, 0) && !math.IsInf(m2.SumW, 0) { // Σw itself may exceed the largest double
			same("MeanCI.SumW", math.Ldexp(m.SumW, k), m2.SumW)
		}
		if !math.IsInf(ws[0]*ws[0], 0) && math.Ldexp(wmin, k)*math.Ldexp(wmin, k) >= 0x1p-1022 && wmin*wmin >= 0x1p-1022 && wmax*wmax < 0x1p1000 && math.Ldexp(wmax, k)*math.Ldexp(wmax, k) < 0x1p1000 {
			same("MeanCI.SE", m.SE, m2.SE)
			same("MeanCI clustered SE", mc.SE, mc2.SE)
		}
	})
}
