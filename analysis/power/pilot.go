package power

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
)

// bootstrap resamples a pilot ledger by template (the cluster).
type bootstrap struct {
	templates []string
	// worlds[t] are template t's worlds: the episodes of one pair key
	// (every condition, contract and cue arm of one world), in ledger order.
	worlds [][][]*ledger.Episode
	total  int
}

func newBootstrap(eps []*ledger.Episode) (*bootstrap, error) {
	b := &bootstrap{}
	ti := map[string]int{}
	wi := map[string]int{}
	for _, e := range eps {
		if e.Template == "" {
			return nil, errors.New("pilot: an episode has no template (" + e.EpisodeID + ")")
		}
		t, ok := ti[e.Template]
		if !ok {
			t = len(b.templates)
			ti[e.Template] = t
			b.templates = append(b.templates, e.Template)
			b.worlds = append(b.worlds, nil)
		}
		key := e.PairKey
		if key == "" {
			key = "\x00" + e.EpisodeID // no pair key: every episode is its own world
		}
		key = e.Template + "\x00" + key
		w, ok := wi[key]
		if !ok {
			w = len(b.worlds[t])
			wi[key] = w
			b.worlds[t] = append(b.worlds[t], nil)
		}
		b.worlds[t][w] = append(b.worlds[t][w], e)
	}
	b.total = len(eps)
	return b, nil
}

// pilotSize is the bootstrap at one multiplier of the episodes per template.
type pilotSize struct {
	b      *bootstrap
	factor float64
}

func (b *bootstrap) at(f float64) generator { return &pilotSize{b: b, factor: f} }

// episodes is the expected size of a replication: every template at
// its own worlds' mean number of episodes.
func (p *pilotSize) episodes() int {
	n := 0.0
	for _, ws := range p.b.worlds {
		k := 0
		for _, w := range ws {
			k += len(w)
		}
		n += float64(max(1, int(math.Round(float64(len(ws))*p.factor)))) * float64(k) / float64(len(ws))
	}
	return int(math.Round(n))
}
func (p *pilotSize) analysed() int { return p.episodes() }

// make draws replication r: as many templates as the pilot has, with
// replacement (whole templates), and within each drawn template
// round(f·n) of its n worlds with replacement (at least 1), each world with
// all its episodes. The stream is a PCG seeded from RepSeed(seed, r), so
// the template draws are the same at every size. Copies are relabelled:
// the c-th extra copy of a template becomes template "T~c" and task
// "task~c" (distinct clusters), and each drawn world gets "~c.k" after its
// episode ids and pair key (distinct pairs).
func (p *pilotSize) make(seed uint64, r int) ([]*ledger.Episode, error) {
	b := p.b
	rng := rand.New(rand.NewPCG(RepSeed(seed, r), 0x70696c6f74)) // "pilot"
	nt := len(b.templates)
	picks := make([]int, nt)
	for i := range picks {
		picks[i] = rng.IntN(nt)
	}
	copies := make([]int, nt)
	var out []*ledger.Episode
	for _, t := range picks {
		c := copies[t]
		copies[t]++
		ws := b.worlds[t]
		n := max(1, int(math.Round(float64(len(ws))*p.factor)))
		wrng := rand.New(rand.NewPCG(RepSeed(seed, r)^uint64(t+1), uint64(c)<<32|uint64(n)))
		for k := range n {
			w := ws[wrng.IntN(len(ws))]
			tag := "~" + strconv.Itoa(c) + "." + strconv.Itoa(k)
			for _, e := range w {
				x := *e
				if c > 0 {
					x.Template += "~" + strconv.Itoa(c)
					x.Task += "~" + strconv.Itoa(c)
				}
				x.EpisodeID += tag
				if x.PairKey != "" {
					x.PairKey += tag
				}
				out = append(out, &x)
			}
		}
	}
	return slices.Clip(out), nil
}
