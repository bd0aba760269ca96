package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/shapley"
	"github.com/limbo-toolkit/limbo/stats"
)

// ShapleySpec is a Shapley analysis: the decomposition of a logistic
// pseudo-R² over the terms of a fixed-effects formula.
type ShapleySpec struct {
	Formula string            // e.g. "duplicated ~ contract + fault_mode + model"
	R2      stats.PseudoR2    // mcfadden (default), nagelkerke, tjur or coxsnell
	Refs    map[string]string // reference levels (do not change the values)
	// Bootstrap adds cluster-bootstrap intervals of the shares and the
	// total: each replicate of Bootstrap.Cluster's clusters is decomposed
	// again (2^k fits).
	Bootstrap BootstrapSpec
}

// ShapleyTerm is one term's part of the pseudo-R².
type ShapleyTerm struct {
	Name  string
	Value float64 // Shapley value, in R² units
	Share float64 // Value / Total, in percent
	// Conditional[k] is the term's mean gain over subsets of k other
	// terms (general dominance's conditional contributions).
	Conditional []float64
	ShareBoot   *BootInterval // of Share, with ShapleySpec.Bootstrap
}

// ShapleyDecomposition is the result of Shapley.
type ShapleyDecomposition struct {
	Spec      ShapleySpec
	Formula   string // the formula as parsed
	N         int64  // rows (episodes)
	Total     float64
	Terms     []ShapleyTerm // in formula order
	TotalBoot *BootInterval // of Total, with ShapleySpec.Bootstrap
	Bootstrap *BootstrapInfo
	Warnings  []Warning
}

// MaxShapleyTerms is the largest number of terms Shapley decomposes (2^k
// fits).
const MaxShapleyTerms = shapley.MaxGroups

// Shapley splits the pseudo-R² of the logistic model of spec.Formula among
// its terms: each term is a player (a factor contributes all its dummy
// columns), the value of a set of terms is the pseudo-R² of the model with
// the intercept and those terms, and a term's share is its Shapley value
// (Lindeman, Merenda & Gold 1980; general dominance, Azen & Budescu
// 2003). Rows are collapsed to covariate patterns. A subset whose fit
// separates contributes its finite supremum log-likelihood and is named in
// the warnings; any other non-convergence is an error.
func Shapley(q Query, spec ShapleySpec) (*ShapleyDecomposition, error) {
	var warn warnings
	if spec.R2 == "" {
		spec.R2 = stats.R2McFadden
	}
	f, err := parseFormula(spec.Formula)
	if err != nil {
		return nil, err
	}
	switch {
	case len(f.Random) > 0:
		return nil, specf("shapley decomposes a fixed-effects logistic model; remove %s", randomTerms(f))
	case f.Cbind != nil || len(f.Offsets) > 0:
		return nil, specf("shapley decomposes a logistic model of a binary outcome column, without cbind() or offset()")
	case !f.Intercept:
		return nil, specf("shapley needs the intercept (the value of no terms is the intercept-only model)")
	case len(f.Terms) == 0:
		return nil, specf("the formula has no terms to decompose")
	case len(f.Terms) > shapley.MaxGroups:
		return nil, specf("%d terms: at most %d (2^k fits)", len(f.Terms), shapley.MaxGroups)
	}
	if !spec.R2.Valid() {
		return nil, fieldErr("R2", "{R2} %q: want mcfadden, nagelkerke, tjur or coxsnell", spec.R2)
	}
	if err := spec.Bootstrap.checkCluster(); err != nil {
		return nil, err
	}
	if spec.Bootstrap.Replicates > 0 {
		q.extra = append(q.extra, spec.Bootstrap.Cluster)
	}
	fr, d, err := q.modelDesign(f, nil, q.Weight, true, 0, spec.Refs, &warn)
	if err != nil {
		return nil, err
	}
	k := len(d.Terms)
	sr, separated, aliased, err := shapleyOf(fr.Y(), fr.W(), d, spec.R2)
	if err != nil {
		return nil, err
	}
	if len(aliased) > 0 {
		warn.addf(WarnDroppedTerm, "aliased columns left out in %d of %d subset fits (%s); the likelihood of a fit does not change", len(aliased), 1<<k, strings.Join(aliased, "; "))
	}
	if len(separated) > 0 {
		warn.addf(WarnSeparation, "separation in %d of %d subset fits (%s); their pseudo-R² uses the finite supremum log-likelihood", len(separated), 1<<k, strings.Join(separated, " "))
	}
	res := &ShapleyDecomposition{Spec: spec, Formula: f.String(), N: fr.Rows, Total: sr.Total}
	for j, dt := range d.Terms {
		res.Terms = append(res.Terms, ShapleyTerm{Name: dt.Term.String(), Value: sr.Values[j], Share: sr.Shares[j], Conditional: sr.Dominance[j]})
	}
	if spec.Bootstrap.Replicates > 0 {
		if err := bootShapley(fr, f, spec, res, &warn); err != nil {
			return nil, err
		}
	}
	res.Warnings = warn.items()
	return res, nil
}

// shapleyOf decomposes the pseudo-R² kind of the logistic model of y
// (weights w) on the design d over d's terms, and names the subsets whose
// fit separated or left aliased columns out.
func shapleyOf(y, w []float64, d *formula.Design, kind stats.PseudoR2) (sr *shapley.Result, separated, aliased []string, err error) {
	v := func(subset []int) (float64, error) {
		x, names := d.Select(subset)
		r, dropped, err := logisticSpan(x, y, w, names)
		if err != nil {
			return 0, err
		}
		var terms []string
		for _, j := range subset {
			terms = append(terms, d.Terms[j].Term.String())
		}
		if r.Separation {
			separated = append(separated, "{"+strings.Join(terms, ", ")+"}")
		}
		if len(dropped) > 0 {
			aliased = append(aliased, "{"+strings.Join(terms, ", ")+"}: "+strings.Join(dropped, ", "))
		}
		// Under separation the deviance still converges to its finite
		// supremum (Albert & Anderson 1984, Biometrika 71:1–10), which is
		// all a pseudo-R² needs; any other non-convergence makes the value
		// unreliable.
		if !r.Converged && !r.Separation {
			return 0, fmt.Errorf("the fit did not converge")
		}
		return pseudoR2(kind, r, y, w), nil
	}
	sr, err = shapley.Exact(len(d.Terms), v)
	return sr, separated, aliased, err
}

// bootShapley adds cluster-bootstrap intervals to the shares and the
// total of res: each replicate's frame (fr's cells of the drawn clusters,
// their counts times the draws) is decomposed again.
func bootShapley(fr *frame.Frame, f *formula.Formula, spec ShapleySpec, res *ShapleyDecomposition, warn *warnings) error {
	bs := spec.Bootstrap
	rs, err := newResampler(fr, bs.Cluster, nil)
	if err != nil {
		return err
	}
	if !slices.Contains(f.CovariateColumns(), bs.Cluster) {
		rs.pool(bs.Cluster)
	}
	k := len(res.Terms)
	theta := make([]float64, k+1)
	for j, t := range res.Terms {
		theta[j] = t.Share
	}
	theta[k] = res.Total
	stat := func(counts []int, out []float64) error {
		r := rs.frame(counts)
		d, err := formula.Build(f, r, formula.Options{Ref: spec.Refs})
		if err != nil {
			return err
		}
		sr, _, _, err := shapleyOf(r.Y(), r.W(), d, spec.R2)
		if err != nil {
			return err
		}
		copy(out, sr.Shares)
		out[k] = sr.Total
		return nil
	}
	reps, failed := stats.Replicates(bs.Replicates, k+1, bs.Seed, bs.Jobs, func(_ int, rng *rand.Rand, out []float64) error {
		return stat(clusterCounts(rng, rs.n), out)
	})
	jack, _ := stats.Jackknife(rs.n, k+1, bs.Jobs, func(i int, out []float64) error { return stat(leaveOut(rs.n, i), out) })
	for j := range res.Terms {
		res.Terms[j].ShareBoot = bootInterval(reps, k+1, j, theta[j], jack, bs.Level)
	}
	res.TotalBoot = bootInterval(reps, k+1, k, theta[k], jack, bs.Level)
	res.Bootstrap = &BootstrapInfo{Kind: "cluster", Replicates: bs.Replicates, Failed: failed, Cluster: bs.Cluster, Clusters: rs.n, Seed: bs.Seed, Level: bs.Level, Interval: bs.Interval}
	bootWarnings(res.Bootstrap, warn)
	return nil
}

// logisticSpan fits the logistic regression of y on x, leaving out the
// columns stats.Logistic reports aliased with others: the fitted values,
// and so every pseudo-R², depend only on the span of the columns. It
// returns the names of the columns left out.
func logisticSpan(x *mat.Dense, y, w []float64, names []string) (*stats.LogisticResult, []string, error) {
	var dropped []string
	for {
		r, err := stats.Logistic(x, y, w, stats.LogisticOptions{Names: names})
		var se *stats.SingularError
		if !errors.As(err, &se) || len(se.Columns) == 0 || len(se.Columns) >= len(names) {
			if err != nil {
				return nil, nil, fitError(err)
			}
			return r, dropped, nil
		}
		keep := make([]int, 0, len(names))
		for j := range names {
			if !slices.Contains(se.Columns, j) {
				keep = append(keep, j)
			} else {
				dropped = append(dropped, names[j])
			}
		}
		n, _ := x.Dims()
		nx := mat.NewDense(n, len(keep), nil)
		kept := make([]string, len(keep))
		for k, j := range keep {
			nx.SetCol(k, mat.Col(nil, j, x))
			kept[k] = names[j]
		}
		x, names = nx, kept
	}
}

// pseudoR2 is the chosen pseudo-R² of a fit (n = Σw Bernoulli rows: a
// non-integer frequency weight is not rounded).
func pseudoR2(kind stats.PseudoR2, r *stats.LogisticResult, y, w []float64) float64 {
	if (kind == stats.R2Nagelkerke || kind == stats.R2CoxSnell) && !(r.SumW > 0) {
		return math.NaN() // n = Σw is 0: the index is undefined
	}
	switch kind {
	case stats.R2Nagelkerke:
		return stats.Nagelkerke(r.LogLik, r.NullLogLik, r.SumW)
	case stats.R2CoxSnell:
		return stats.CoxSnell(r.LogLik, r.NullLogLik, r.SumW)
	case stats.R2Tjur:
		return stats.TjurWeighted(y, r.Mu, w)
	}
	return stats.McFadden(r.LogLik, r.NullLogLik)
}
