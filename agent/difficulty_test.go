package agent

import (
	"math"
	"testing"
)

func TestHarden(t *testing.T) {
	p := Params{VTo: 0.8, V500: 1, W: 0.5, S: 0, Pi: 0.5, G: 0.02, KNat: 1, KKe: 0.7, R: 0.9, A: 0.3}
	if got := p.Harden(0, 2); got != p {
		t.Errorf("z = 0 changed %+v to %+v", p, got)
	}
	if got := p.Harden(1.3, 0); got != p {
		t.Errorf("sd = 0 changed %+v to %+v", p, got)
	}
	h := p.Harden(1, 1) // a harder template: σz = 1 on the logit scale
	// Reference: expit(logit(0.5) ∓ 1) = expit(∓1) = 0.268941…, 0.731058…
	// (closed form, 1e-12).
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"w", h.W, 1 / (1 + math.E)}, {"pi", h.Pi, 1 / (1 + 1/math.E)},
		{"v_to", h.VTo, 1 / (1 + math.Exp(-(math.Log(4) - 1)))},
		{"g", h.G, 1 / (1 + math.Exp(-(math.Log(0.02/0.98) + 1)))},
		// 0 and 1 stay put; keys, reuse and drift are not difficulty.
		{"v_500", h.V500, 1}, {"s", h.S, 0}, {"k_nat", h.KNat, 1}, {"k_ke", h.KKe, 0.7}, {"r", h.R, 0.9}, {"a", h.A, 0.3},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// A template's difficulty depends on the seed and the template only.
func TestTemplateDifficulty(t *testing.T) {
	a, b := TemplateDifficulty(1, "T01"), TemplateDifficulty(1, "T01")
	if a != b {
		t.Fatalf("not deterministic: %v, %v", a, b)
	}
	if a == TemplateDifficulty(1, "T02") || a == TemplateDifficulty(2, "T01") {
		t.Error("difficulty does not depend on the template and the seed")
	}
	// Standard normal: over many templates the mean is near 0 and the SD
	// near 1 (n = 4000: SE 0.016 and 0.011; tolerance 5 SE).
	var s, s2 float64
	const n = 4000
	for i := range n {
		z := TemplateDifficulty(7, "T"+string(rune('A'+i%26))+string(rune('0'+i/26%10))+string(rune('a'+i/260)))
		s += z
		s2 += z * z
	}
	m := s / n
	sd := math.Sqrt(s2/n - m*m)
	if math.Abs(m) > 0.08 || math.Abs(sd-1) > 0.06 {
		t.Errorf("mean %v, sd %v; want ≈ 0 and 1", m, sd)
	}
}
