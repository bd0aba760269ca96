package power

import (
	"fmt"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// zq is the upper-α normal quantile z_{1−α}.
func zq(alpha float64) float64 { return stats.ZLevel(1 - 2*alpha) }

// TwoProportions is the power of the one-sided z-test that p₁ − p₂ > 0 at
// level α with n₁ and n₂ (effective) episodes, the normal approximation of
// R's power.prop.test generalised to unequal arms:
//
//	p̄ = (n₁p₁ + n₂p₂)/(n₁ + n₂)
//	SE₀ = √(p̄(1−p̄)(1/n₁ + 1/n₂)),  SE₁ = √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂)
//	power = Φ((p₁ − p₂ − z_{1−α}·SE₀) / SE₁)
//
// With n₁ = n₂ = n it is power.prop.test(n, p1, p2, sig.level = α,
// alternative = "one.sided"); a two-sided test at α is this at α/2
// (power.prop.test's strict = FALSE). Fleiss, Levin and Paik (2003),
// Statistical Methods for Rates and Proportions, §4.2. NaN when an arm is
// empty or both rates are 0 or 1.
func TwoProportions(p1, p2, n1, n2, alpha float64) float64 {
	if !(n1 > 0 && n2 > 0) {
		return math.NaN()
	}
	pb := (n1*p1 + n2*p2) / (n1 + n2)
	se0 := math.Sqrt(pb * (1 - pb) * (1/n1 + 1/n2))
	se1 := math.Sqrt(p1*(1-p1)/n1 + p2*(1-p2)/n2)
	if se1 == 0 {
		return math.NaN()
	}
	return stats.NormalCDF((p1 - p2 - zq(alpha)*se0) / se1)
}

// McNemar is the power of McNemar's test at two-sided level α with n pairs
// whose discordant proportions are p10 (only the first arm has the
// outcome) and p01, in the first arm's favour (Connor 1987, Biometrics
// 43:207–211, eq. 3):
//
//	δ = p10 − p01,  ψ = p10 + p01
//	power = Φ((δ√n − z_{1−α/2}·√ψ) / √(ψ − δ²))
//
// A one-sided test at α is this at 2α. NaN when ψ − δ² ≤ 0 (no discordant
// pair, or every pair discordant the same way) or n ≤ 0.
func McNemar(p10, p01, n, alpha float64) float64 {
	d, psi := p10-p01, p10+p01
	v := psi - d*d
	if !(n > 0) || !(v > 0) {
		return math.NaN()
	}
	return stats.NormalCDF((d*math.Sqrt(n) - zq(alpha/2)*math.Sqrt(psi)) / math.Sqrt(v))
}

// TOST is the power of Schuirmann's two one-sided Wald tests at level α
// that |p₁ − p₂| < δ (the margin, as a proportion) with n₁ and n₂
// (effective) episodes, by the normal approximation (Chow, Shao and Wang
// 2008, Sample Size Calculations in Clinical Research, §4.2):
//
//	SE = √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂),  Δ = p₁ − p₂
//	power = max(0, Φ((δ − Δ)/SE − z_{1−α}) + Φ((δ + Δ)/SE − z_{1−α}) − 1)
//
// NaN when an arm is empty or SE = 0.
func TOST(p1, p2, n1, n2, margin, alpha float64) float64 {
	if !(n1 > 0 && n2 > 0) {
		return math.NaN()
	}
	d, se := stats.RateDiffWald(p1, n1, p2, n2)
	if se == 0 {
		return math.NaN()
	}
	z := zq(alpha)
	return max(0, stats.NormalCDF((margin-d)/se-z)+stats.NormalCDF((margin+d)/se-z)-1)
}

// DesignEffect is Kish's 1 + (m − 1)ρ for clusters of mean size m and
// intraclass correlation ρ.
func DesignEffect(m, rho float64) float64 { return 1 + (m-1)*rho }

// Closed is the closed-form power of one ruled part (one level of its
// for_each) over the grid.
type Closed struct {
	Hypothesis, Part, Level string
	Kind                    string // the estimand kind
	Method                  string // the formula; "n/a" when the kind has none
	Assumptions             string
	Inputs                  []Input   // at the base size
	Power                   []float64 // per size; NaN for n/a or undefined
	Reason                  string    // why the inputs could not be computed
}

// Input is one number a closed form reads.
type Input struct {
	Name  string
	Value float64
}

const (
	methodTwoProp = "two proportions, design effect 1 + (m − 1)ρ"
	methodMcNemar = "McNemar from the discordant proportions (Connor 1987)"
	methodTOST    = "TOST for two proportions (normal approximation)"

	assumeTwoProp = "normal approximation with the pooled null variance (power.prop.test); n per arm divided by 1 + (m − 1)ρ, the clusters fixed and their mean size m growing with the size; rates and ρ as at the base size"
	assumePoint   = "normal approximation: the chance that the estimate lands on the predicted side of the bound; n per arm divided by 1 + (m − 1)ρ, the clusters fixed and their mean size m growing with the size; rates and ρ as at the base size"
	assumeMcNemar = "independent pairs, discordant proportions as at the base size, pairs growing with the size; multiplicity adjustment ignored"
	assumeTOST    = "Wald standard error on n_eff = n/(1 + (m − 1)ρ), the clusters fixed and their mean size growing with the size; rates and ρ as at the base size"
)

// closedForms computes the closed forms of every ruled part from the
// pilot, or from a base-size replication of the design (replication 1's
// seed), at every size of the grid.
func closedForms(o Options, gens []generator) ([]*Closed, []string, error) {
	var eps []*ledger.Episode
	switch {
	case !hasClosedForm(o.Prereg):
		// Nothing to estimate inputs for: every part is n/a.
	case o.Pilot != nil:
		eps = o.Pilot
	default:
		var base generator
		for i, f := range o.Sizes {
			if f == 1 {
				base = gens[i]
			}
		}
		if base == nil {
			g, err := newSimulation(o.Manifest, o.profiles(), o.Prereg, o.Scale, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("base size: %w", err)
			}
			base = g
		}
		var err error
		if eps, err = base.make(o.Seed, 0); err != nil {
			return nil, nil, fmt.Errorf("base size: %w", err)
		}
	}
	rows, err := o.Prereg.Rows(eps)
	if err != nil {
		return nil, nil, err
	}
	var out []*Closed
	var warns []string
	for _, h := range o.Prereg.Hypotheses {
		for _, p := range h.Parts {
			if p.Rule == nil {
				continue
			}
			where := formula.And(h.Population, p.Population)
			levels := []string{""}
			if p.ForEach != "" {
				if levels, err = formula.ColumnLevels(rows, where, p.ForEach); err != nil || len(levels) == 0 {
					levels = []string{""}
				}
			}
			for _, lv := range levels {
				sub := rows
				if lv != "" {
					sub = nil
					for _, r := range rows {
						if v, ok := r.Get(p.ForEach); ok && !v.Null && v.String() == lv {
							sub = append(sub, r)
						}
					}
				}
				c := closedPart(p, analysis.Query{Source: table.Rows(sub), Where: where, Weight: p.Estimand.Weight}, sub, o.Sizes)
				c.Hypothesis, c.Level = h.ID, lv
				if c.Reason != "" {
					warns = append(warns, fmt.Sprintf("%s %s: no closed form: %s", h.ID, label(c), c.Reason))
				}
				out = append(out, c)
			}
		}
	}
	return out, warns, nil
}

// hasClosedForm reports whether a ruled part of f has a closed form.
func hasClosedForm(f *prereg.File) bool {
	for _, h := range f.Hypotheses {
		for _, p := range h.Parts {
			if p.Rule != nil && slices.Contains([]prereg.Kind{prereg.KindRateDiff, prereg.KindTOST, prereg.KindMcNemar}, p.Estimand.Kind) {
				return true
			}
		}
	}
	return false
}

func label(c *Closed) string {
	l := c.Part
	if l == "" {
		l = c.Kind
	}
	if c.Level != "" {
		l += " [" + c.Level + "]"
	}
	return l
}

func (o *Options) profiles() *agent.Profiles {
	if o.Profiles == nil {
		return agent.DefaultProfiles()
	}
	return o.Profiles
}

// closedPart computes one part's inputs and its closed form per size.
func closedPart(p *prereg.Part, q analysis.Query, rows []frame.Row, sizes []float64) *Closed {
	e, r := p.Estimand, p.Rule
	c := &Closed{Part: p.Name, Kind: string(e.Kind), Method: "n/a", Power: nanSlice(len(sizes))}
	sign := 1.0 // +1 when the rule predicts a large value
	if r.Direction == prereg.Below || r.Direction == prereg.AtMost {
		sign = -1
	}
	bound := r.Bound
	if math.IsNaN(bound) {
		bound = 0
	}
	switch e.Kind {
	case prereg.KindRateDiff, prereg.KindTOST:
		in, err := armInputs(q, rows, p.Outcome, e)
		if err != nil {
			c.Reason = err.Error()
			return c
		}
		c.Inputs = in.list(e)
		for i, f := range sizes {
			deff := DesignEffect(f*in.m, in.rho)
			n1, n2 := f*in.n1/deff, f*in.n2/deff
			switch {
			case e.Kind == prereg.KindTOST:
				c.Method, c.Assumptions = methodTOST, assumeTOST
				c.Power[i] = TOST(in.p1, in.p2, n1, n2, r.Margin/100, r.Alpha)
			case r.Use == prereg.UseInterval:
				c.Method, c.Assumptions = methodTwoProp, assumeTwoProp
				level := e.Level
				if math.IsNaN(level) {
					level = 0.95
				}
				// The interval lies beyond the bound: a one-sided test at
				// (1 − level)/2; against a bound other than 0 the pooled null
				// variance means nothing, so the Wald form takes over.
				a := (1 - level) / 2
				switch {
				case bound != 0:
					_, se := stats.RateDiffWald(in.p1, n1, in.p2, n2)
					c.Power[i] = stats.NormalCDF(sign*(100*(in.p1-in.p2)-bound)/(100*se) - zq(a))
				case sign > 0:
					c.Power[i] = TwoProportions(in.p1, in.p2, n1, n2, a)
				default:
					c.Power[i] = TwoProportions(in.p2, in.p1, n2, n1, a)
				}
			case r.Use == prereg.UsePoint:
				c.Method, c.Assumptions = methodTwoProp, assumePoint
				_, se := stats.RateDiffWald(in.p1, n1, in.p2, n2)
				d := sign * (100*(in.p1-in.p2) - bound)
				switch {
				case se > 0:
					c.Power[i] = stats.NormalCDF(d / (100 * se))
				case d > 0 || d == 0 && (r.Direction == prereg.AtLeast || r.Direction == prereg.AtMost):
					c.Power[i] = 1 // both rates 0 or 1: the estimate is known
				default:
					c.Power[i] = 0
				}
			default:
				c.Reason = "the rule reads a test the estimand does not give"
			}
		}
	case prereg.KindMcNemar:
		res, err := analysis.Paired(q, analysis.PairedSpec{Outcome: p.Outcome, Arm: e.Arm, Base: e.A, Levels: []string{e.B}, PairBy: e.PairBy, Test: stats.PairedTest(e.Test), Adjust: "none"})
		if err != nil || len(res.Comparisons) != 1 || res.Comparisons[0].Pairs == 0 {
			c.Reason = "no pairs at the base size"
			if err != nil {
				c.Reason = err.Error()
			}
			return c
		}
		cmp := res.Comparisons[0]
		n := float64(cmp.Pairs)
		p10, p01 := float64(cmp.B)/n, float64(cmp.C)/n
		if sign < 0 {
			p10, p01 = p01, p10
		}
		c.Method, c.Assumptions = methodMcNemar, assumeMcNemar
		c.Inputs = []Input{{"pairs", n}, {"p_only_" + e.A, float64(cmp.B) / n}, {"p_only_" + e.B, float64(cmp.C) / n}}
		alpha := r.Alpha
		if r.Sides == 1 {
			alpha *= 2
		}
		for i, f := range sizes {
			c.Power[i] = McNemar(p10, p01, f*n, alpha)
		}
	}
	return c
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// arms are the two arms' rates and sizes with the population's clustering.
type arms struct {
	p1, p2, n1, n2 float64
	m, rho         float64 // mean cluster size and ICC (1 and 0 without a cluster)
	clusters       int
}

func (a *arms) list(e prereg.Estimand) []Input {
	in := []Input{{"rate_" + e.A, a.p1}, {"n_" + e.A, a.n1}, {"rate_" + e.B, a.p2}, {"n_" + e.B, a.n2}}
	if e.Cluster != "" {
		in = append(in, Input{"clusters", float64(a.clusters)}, Input{"m", a.m}, Input{"icc", a.rho})
	}
	return in
}

// armInputs reads the two arms' rates, sizes, the ICC and the mean cluster
// size of the population.
func armInputs(q analysis.Query, rows []frame.Row, outcome string, e prereg.Estimand) (*arms, error) {
	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: outcome, By: []string{e.Arm}, Cluster: e.Cluster})
	if err != nil {
		return nil, err
	}
	a := &arms{m: 1}
	var okA, okB bool
	for _, row := range r.Rows {
		switch row.Levels[0] {
		case e.A:
			a.p1, a.n1, okA = row.P, float64(row.N), true
		case e.B:
			a.p2, a.n2, okB = row.P, float64(row.N), true
		}
	}
	if !okA || !okB {
		return nil, fmt.Errorf("an arm (%s = %s or %s) is empty at the base size", e.Arm, e.A, e.B)
	}
	if e.Cluster != "" {
		k, err := countClusters(q, rows, e.Cluster)
		if err != nil {
			return nil, err
		}
		a.clusters = k
		a.m = (a.n1 + a.n2) / float64(k)
		a.rho = r.ICC
		if math.IsNaN(a.rho) || a.rho < 0 {
			a.rho = 0
		}
	}
	return a, nil
}

// countClusters counts the distinct values of col among the rows (q's
// source) that q keeps.
func countClusters(q analysis.Query, rows []frame.Row, col string) (int, error) {
	w, err := formula.ParseWhere(q.Where)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, r := range rows {
		ok, err := w.Keep(r)
		if err != nil {
			return 0, err
		}
		if v, has := r.Get(col); ok && has && !v.Null {
			seen[v.String()] = true
		}
	}
	return max(1, len(seen)), nil
}
