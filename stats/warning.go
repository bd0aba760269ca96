package stats

// WarningCode classifies a Warning of a fit.
type WarningCode int

// Warning codes.
const (
	WarnNotConverged WarningCode = iota + 1 // the iterations stopped before converging
	WarnSeparation                          // (quasi-)separation, or fitted probabilities numerically 0 or 1
	WarnAliased                             // columns dropped as linear combinations of earlier ones
	WarnCovUndefined                        // a requested covariance (Mancl–DeRouen, Kauermann–Carroll) is not computable
	WarnNoResidualDF                        // no residual degrees of freedom: dispersion and SEs undefined
	WarnApproximate                         // the standard errors or tests are approximate (Firth)
)

// Warning is a diagnostic of a fit that does not stop it.
type Warning struct {
	Code WarningCode
	Msg  string
}

// String returns the message.
func (w Warning) String() string { return w.Msg }
