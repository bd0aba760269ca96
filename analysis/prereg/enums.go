package prereg

import (
	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/stats"
)

// The fixed-value keys of a preregistration are string types: each has
// String, UnmarshalText (whose error names the accepted values) and the
// list of its values. The decoder reads them as text and validate
// reports a bad value with its file:line; UnmarshalText serves callers
// that build a File in code or read the values from elsewhere.

// Kind is an estimand's kind: rate, rate_difference, mcnemar,
// odds_ratio, coefficient, shapley_share or tost.
type Kind string

// Kinds lists the estimand kinds, in the order messages list them.
var Kinds = []Kind{KindRate, KindRateDiff, KindMcNemar, KindOddsRatio, KindCoefficient, KindShapley, KindTOST}

// String returns the kind as the file writes it.
func (k Kind) String() string { return string(k) }

// UnmarshalText accepts one of Kinds.
func (k *Kind) UnmarshalText(b []byte) error { return enum.Unmarshal("kind", b, Kinds, k) }

// Direction is a rule's direction: above, at_least, below, at_most,
// different or equivalent.
type Direction string

// Directions lists the rule directions.
var Directions = []Direction{Above, AtLeast, Below, AtMost, Different, Equivalent}

// String returns the direction as the file writes it.
func (d Direction) String() string { return string(d) }

// UnmarshalText accepts one of Directions.
func (d *Direction) UnmarshalText(b []byte) error {
	return enum.Unmarshal("direction", b, Directions, d)
}

// Use is how a rule reads its estimand: point, interval or test.
type Use string

// Uses lists the ways a rule reads its estimand.
var Uses = []Use{UsePoint, UseInterval, UseTest}

// String returns the use as the file writes it.
func (u Use) String() string { return string(u) }

// UnmarshalText accepts one of Uses.
func (u *Use) UnmarshalText(b []byte) error { return enum.Unmarshal("use", b, Uses, u) }

// Analysis is a hypothesis's role: primary or sensitivity.
type Analysis string

// Analyses lists the roles of a hypothesis.
var Analyses = []Analysis{Primary, Sensitivity}

// String returns the role as the file writes it.
func (a Analysis) String() string { return string(a) }

// UnmarshalText accepts one of Analyses.
func (a *Analysis) UnmarshalText(b []byte) error { return enum.Unmarshal("analysis", b, Analyses, a) }

// Combine is how a hypothesis combines its parts' verdicts: all or
// partial (docs/prereg.md, Hypothesis).
type Combine string

// How parts combine.
const (
	CombineAll     Combine = "all"
	CombinePartial Combine = "partial"
)

// Combines lists the ways parts combine.
var Combines = []Combine{CombineAll, CombinePartial}

// String returns the combination as the file writes it.
func (c Combine) String() string { return string(c) }

// UnmarshalText accepts one of Combines.
func (c *Combine) UnmarshalText(b []byte) error { return enum.Unmarshal("combine", b, Combines, c) }

// IfNotComputable is what a part that cannot be computed counts as: fail
// (the hypothesis is not computable) or not_supported.
type IfNotComputable string

// What a part that cannot be computed counts as.
const (
	IfNotComputableFail         IfNotComputable = "fail"
	IfNotComputableNotSupported IfNotComputable = "not_supported"
)

// IfNotComputables lists the values of if_not_computable.
var IfNotComputables = []IfNotComputable{IfNotComputableFail, IfNotComputableNotSupported}

// String returns the value as the file writes it.
func (v IfNotComputable) String() string { return string(v) }

// UnmarshalText accepts one of IfNotComputables.
func (v *IfNotComputable) UnmarshalText(b []byte) error {
	return enum.Unmarshal("if_not_computable", b, IfNotComputables, v)
}

// Adjust is a multiplicity family's adjustment: holm, bonferroni, bh
// (Benjamini–Hochberg) or by (Benjamini–Yekutieli), the engine's
// stats.Adjustment but none.
type Adjust string

// The adjustments of a family.
const (
	AdjustHolm       Adjust = Adjust(stats.AdjustHolm)
	AdjustBonferroni Adjust = Adjust(stats.AdjustBonferroni)
	AdjustBH         Adjust = Adjust(stats.AdjustBH)
	AdjustBY         Adjust = Adjust(stats.AdjustBY)
)

// Adjusts lists the adjustments.
var Adjusts = []Adjust{AdjustHolm, AdjustBonferroni, AdjustBH, AdjustBY}

// String returns the adjustment as the file writes it.
func (a Adjust) String() string { return string(a) }

// UnmarshalText accepts one of Adjusts.
func (a *Adjust) UnmarshalText(b []byte) error { return enum.Unmarshal("adjust", b, Adjusts, a) }

// Model is an odds_ratio's logistic model as the file's first format
// named it: logit, gee or glmm, the engine's names of the logistic
// models of before families (analysis.FamilyLogit), whose output they
// keep. The estimand holds it in its Spec's Family.
type Model string

// The logistic models.
const (
	ModelLogit = Model(analysis.FamilyLogit)
	ModelGEE   = Model(analysis.FamilyGEE)
	ModelGLMM  = Model(analysis.FamilyGLMM)
)

// Models lists the logistic models.
var Models = []Model{ModelLogit, ModelGEE, ModelGLMM}

// String returns the model as the file writes it.
func (m Model) String() string { return string(m) }

// UnmarshalText accepts one of Models.
func (m *Model) UnmarshalText(b []byte) error { return enum.Unmarshal("model", b, Models, m) }

// Scale is how a coefficient estimand reads its coefficient β: ratio
// (exp β: an odds, rate or mean ratio, null 1) or difference (β itself,
// on the link's scale, null 0).
type Scale string

// The scales of a coefficient.
const (
	ScaleRatio      Scale = "ratio"
	ScaleDifference Scale = "difference"
)

// Scales lists the scales of a coefficient.
var Scales = []Scale{ScaleRatio, ScaleDifference}

// String returns the scale as the file writes it.
func (s Scale) String() string { return string(s) }

// UnmarshalText accepts one of Scales.
func (s *Scale) UnmarshalText(b []byte) error { return enum.Unmarshal("scale", b, Scales, s) }

// McNemarTest is a mcnemar estimand's test: exact, midp, chi2 or chi2cc.
type McNemarTest string

// McNemarTests lists the tests (analysis.PairedSpec.Test).
var McNemarTests = []McNemarTest{"exact", "midp", "chi2", "chi2cc"}

// String returns the test as the file writes it.
func (t McNemarTest) String() string { return string(t) }

// UnmarshalText accepts one of McNemarTests.
func (t *McNemarTest) UnmarshalText(b []byte) error {
	return enum.Unmarshal("test", b, McNemarTests, t)
}

// R2 is a shapley_share's pseudo-R²: mcfadden, nagelkerke, tjur or
// coxsnell.
type R2 string

// R2s lists the pseudo-R² measures (analysis.ShapleySpec.R2).
var R2s = []R2{"mcfadden", "nagelkerke", "tjur", "coxsnell"}

// String returns the measure as the file writes it.
func (r R2) String() string { return string(r) }

// UnmarshalText accepts one of R2s.
func (r *R2) UnmarshalText(b []byte) error { return enum.Unmarshal("r2", b, R2s, r) }

// TOSTMethod is an unpaired, unclustered tost's interval: agresti-caffo,
// wald or score.
type TOSTMethod string

// TOSTMethods lists the intervals (analysis.TOSTSpec.Method).
var TOSTMethods = []TOSTMethod{"agresti-caffo", "wald", "score"}

// String returns the method as the file writes it.
func (m TOSTMethod) String() string { return string(m) }

// UnmarshalText accepts one of TOSTMethods.
func (m *TOSTMethod) UnmarshalText(b []byte) error {
	return enum.Unmarshal("method", b, TOSTMethods, m)
}

// orList is "a, b or c".
func orList[T ~string](values []T) string { return enum.OrList(values) }
