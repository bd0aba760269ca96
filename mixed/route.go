package mixed

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// logitIntercepts reports whether s is a model FitLogit fits: binomial
// with the logit link, 0/1 response, no weights, offset or trials, and
// scalar random intercepts only. FitLogit collapses identical rows and
// has AGQ and nAGQ = 0.
func logitIntercepts(s *Spec, link stats.Link) bool {
	if s.Family != stats.Binomial || link != stats.LinkLogit || s.Weights != nil || s.Offset != nil || s.Trials != nil {
		return false
	}
	for _, t := range s.Terms {
		if t.nc() != 1 || (t.Z != nil && t.Z[0] != nil) {
			return false
		}
	}
	return true
}

// fitViaLogit fits s with FitLogit and converts its Result.
func fitViaLogit(s *Spec, opt Options, res *Fitted) error {
	groups := make([]Group, len(s.Terms))
	for k, t := range s.Terms {
		lv := make([]string, t.Levels)
		for j := range lv {
			lv[j] = fmt.Sprint(j)
		}
		groups[k] = Group{Name: t.Name, Index: t.Group, Levels: lv}
	}
	r, err := fitLogit(s.X, s.Y, groups, opt, true)
	if err != nil {
		return err
	}
	res.Coef, res.SE, res.Z, res.P = r.Coef, r.SE, r.Z, r.P
	res.Cov, res.SEMethod = r.Cov, r.SEMethod
	res.Theta = append([]float64(nil), r.Theta...)
	res.LogLik, res.Deviance = r.LogLik, r.Deviance
	res.REMLCrit = math.NaN()
	res.AIC, res.BIC = r.AIC, r.BIC
	res.NPar = len(r.Coef) + len(r.Theta)
	res.N, res.NAGQ = r.N, r.NAGQ
	res.Converged, res.Singular, res.MaxGrad, res.Iter = r.Converged, r.Singular, r.MaxGrad, r.Iter
	res.Terms = make([]TermFit, len(s.Terms))
	for k, t := range s.Terms {
		coef := t.Coef
		if coef == nil {
			coef = []string{"(Intercept)"}
		}
		th := r.Theta[k]
		tf := TermFit{Name: t.Name, Coef: coef, NLevels: r.NLevels[k], SD: []float64{th},
			Corr: mat.NewSymDense(1, []float64{1}), Cov: mat.NewSymDense(1, []float64{th * th}),
			Theta: []float64{th}, Modes: make([][]float64, t.Levels)}
		for l := range tf.Modes {
			tf.Modes[l] = []float64{r.Modes[k][l]}
		}
		res.Terms[k] = tf
	}
	res.Warnings = append(res.Warnings, r.Warnings...)
	return nil
}
