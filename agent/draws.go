package agent

import (
	"math"
	"math/rand/v2"
)

// Slots of the world-shared uniform vector. Each behavioural decision reads
// its own slot, so conditions that shift a threshold change only the
// decisions near it and paired episodes stay concordant (common random
// numbers; docs/simulation.md, Seeds and common random numbers). New slots go at the end, so old
// slots keep their values.
const (
	slotKey       = iota // attach a key on the original request
	slotVerify           // read back before re-issuing
	slotLag              // wait out a documented lag
	slotSkip             // skip after a positive read-back
	slotImpatient        // re-issue at once after an empty read-back
	slotGiveUp           // give up after an empty read-back
	slotReuse            // reuse the key on a re-issue
	slotDrift            // drift the arguments on a re-issue
	slotJitter           // verification jitter
	slotPatience         // how long to wait before re-checking
	slotSlip             // residual slip: a second re-issue
	slotOracle           // use the oracle tool when offered
	slotReport           // report "completed"
	slotSilent           // list no uncertainty
	slotAbandon          // hand the rest of the task over
	nSlots
)

// Draws are an episode's random numbers: a vector of uniforms shared by
// every episode of the same world (run seed, model, task instance, focal
// write, fault mode), drawn in a fixed order, plus an episode-own stream
// for think times, key names and the small independent noise.
type Draws struct {
	world [nSlots]float64
	ep    *rand.Rand
	noise float64
	epSrc rand.PCG // ep's source, allocated with the draws
}

// Hash64 is FNV-1a over s, the key-to-seed map of every stream.
func Hash64(s string) uint64 { return hashMore(14695981039346656037, s) }

// hashMore continues the FNV-1a hash h with s: Hash64(a+b) is
// hashMore(Hash64(a), b), without the concatenation.
func hashMore(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// NewDraws seeds the world vector from (seed, worldKey) and the episode
// stream from (seed, episodeKey). With probability noise a decision reads
// the episode stream instead of its world slot.
func NewDraws(seed uint64, worldKey, episodeKey string, noise float64) *Draws {
	d := &Draws{noise: noise}
	// The world stream is used up here, read as rand.Rand's Float64
	// reads it (a Rand would take it to the heap).
	var w rand.PCG
	w.Seed(seed, Hash64(worldKey))
	for i := range d.world {
		d.world[i] = float64(w.Uint64()<<11>>11) / (1 << 53)
	}
	d.epSrc.Seed(seed^0x9e3779b97f4a7c15, Hash64(episodeKey))
	d.ep = rand.New(&d.epSrc)
	return d
}

// u returns the uniform of a behavioural slot.
func (d *Draws) u(slot int) float64 {
	if d.noise > 0 && d.ep.Float64() < d.noise {
		return d.ep.Float64()
	}
	return d.world[slot]
}

// own returns an episode-own uniform.
func (d *Draws) own() float64 { return d.ep.Float64() }

// expo turns a uniform into an exponential draw with the given mean.
func expo(u, mean float64) float64 { return -mean * math.Log1p(-u) }
