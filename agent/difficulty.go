package agent

import (
	"math"
	"math/rand/v2"
)

// TemplateDifficulty is task template tpl's standard-normal difficulty z in
// run seed's world: one draw from a PCG keyed by (seed, template), so every
// model, condition, contract, cue arm and instance of the template meets the
// same z (a template-level random effect; docs/methods.md, Clustered effective sample size).
func TemplateDifficulty(seed uint64, tpl string) float64 {
	return rand.New(rand.NewPCG(seed^0x7f4a7c159e3779b9, Hash64("template/"+tpl))).NormFloat64()
}

// Harden returns p on a task of difficulty z: with σ = sd, the propensities
// of careful acts (v_to, v_500, w, s) move by −σz on the logit scale and
// those of hasty ones (π, g) by +σz; keys, reuse, drift, the oracle and the
// reporting propensities are left alone. A propensity of exactly 0 or 1
// stays put (logit ±∞), so a model that always verifies does so on every
// template. Harden(0, ·) and Harden(·, 0) return p unchanged.
//
// Why [I]: the paper's Wilson intervals imply a template ICC of 0.25–0.30
// in every E1 column (docs/methods.md, Clustered effective sample size): behaviour, not only the contract
// mix, must vary by task, the same way for every model.
func (p Params) Harden(z, sd float64) Params {
	s := sd * z
	if s == 0 {
		return p
	}
	for _, f := range []*float64{&p.VTo, &p.V500, &p.W, &p.S} {
		*f = shiftLogit(*f, -s)
	}
	for _, f := range []*float64{&p.Pi, &p.G} {
		*f = shiftLogit(*f, s)
	}
	return p
}

// shiftLogit returns expit(logit(x) + s) for x in (0,1), x otherwise.
func shiftLogit(x, s float64) float64 {
	if !(x > 0 && x < 1) {
		return x
	}
	return 1 / (1 + math.Exp(-(math.Log(x/(1-x)) + s)))
}

// Care returns p with its careful propensities (v_to, v_500, w, s) moved
// by d on the logit scale: a prompt that makes the risk of a duplicate
// salient (the aware condition) makes every model more careful where it is
// not already certain; a propensity of exactly 0 or 1 stays put, so models
// that always verify are unchanged. Care(0) returns p unchanged.
//
// Why: it replaces per-model shifts of the aware cells (Table 7) by one
// mechanism whose effect follows from each model's own habits.
func (p Params) Care(d float64) Params {
	if d == 0 {
		return p
	}
	for _, f := range []*float64{&p.VTo, &p.V500, &p.W, &p.S} {
		*f = shiftLogit(*f, d)
	}
	return p
}
