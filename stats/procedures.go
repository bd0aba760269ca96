package stats

import (
	"fmt"
	"slices"
)

// PairedTest is the test of a Paired comparison: a McNemar test of a
// binary outcome (exact, midp, chi2, chi2cc) or a test of the differences
// of a numeric one (t, wilcoxon).
type PairedTest string

// The paired tests.
const (
	PairedExact    PairedTest = "exact"    // exact binomial McNemar (the binary default)
	PairedMidP     PairedTest = "midp"     // mid-p McNemar
	PairedChi2     PairedTest = "chi2"     // McNemar's χ² without continuity correction
	PairedChi2CC   PairedTest = "chi2cc"   // McNemar's χ² with Edwards' continuity correction
	PairedStudentT PairedTest = "t"        // Student's paired t (the numeric default)
	PairedWilcoxon PairedTest = "wilcoxon" // Wilcoxon's signed-rank test
)

// PairedTests returns the accepted tests: the McNemar tests of a binary
// outcome, then those of a numeric one.
func PairedTests() []PairedTest {
	return []PairedTest{PairedExact, PairedMidP, PairedChi2, PairedChi2CC, PairedStudentT, PairedWilcoxon}
}

// String returns the test's name.
func (t PairedTest) String() string { return string(t) }

// Valid reports whether t is one of PairedTests.
func (t PairedTest) Valid() bool { return slices.Contains(PairedTests(), t) }

// MarshalText returns the test's name.
func (t PairedTest) MarshalText() ([]byte, error) { return []byte(t), nil }

// UnmarshalText accepts the names of PairedTests.
func (t *PairedTest) UnmarshalText(b []byte) error {
	if v := PairedTest(b); v.Valid() {
		*t = v
		return nil
	}
	return fmt.Errorf("paired test %q: want exact, midp, chi2 or chi2cc (a binary outcome), t or wilcoxon (a numeric one)", b)
}

// Adjustment is a multiplicity adjustment of p-values.
type Adjustment string

// The adjustments.
const (
	AdjustHolm       Adjustment = "holm"       // Holm (1979), the default
	AdjustBonferroni Adjustment = "bonferroni" // Bonferroni
	AdjustBH         Adjustment = "bh"         // Benjamini–Hochberg (1995) false discovery rate
	AdjustBY         Adjustment = "by"         // Benjamini–Yekutieli (2001) false discovery rate under any dependence
	AdjustNone       Adjustment = "none"       // the p-values as they are
)

// Adjustments returns the accepted adjustments, the default first.
func Adjustments() []Adjustment {
	return []Adjustment{AdjustHolm, AdjustBonferroni, AdjustBH, AdjustBY, AdjustNone}
}

// String returns the adjustment's name.
func (a Adjustment) String() string { return string(a) }

// Valid reports whether a is one of Adjustments.
func (a Adjustment) Valid() bool { return slices.Contains(Adjustments(), a) }

// MarshalText returns the adjustment's name.
func (a Adjustment) MarshalText() ([]byte, error) { return []byte(a), nil }

// UnmarshalText accepts the names of Adjustments.
func (a *Adjustment) UnmarshalText(b []byte) error {
	return unmarshalName("adjustment", b, Adjustments(), a)
}

// PseudoR2 is the pseudo-R² a Shapley decomposition shares out.
type PseudoR2 string

// The pseudo-R² indices.
const (
	R2McFadden   PseudoR2 = "mcfadden"   // McFadden (1974), the default
	R2Nagelkerke PseudoR2 = "nagelkerke" // Nagelkerke (1991)
	R2Tjur       PseudoR2 = "tjur"       // Tjur (2009) coefficient of discrimination
	R2CoxSnell   PseudoR2 = "coxsnell"   // Cox and Snell (1989)
)

// PseudoR2s returns the accepted indices, the default first.
func PseudoR2s() []PseudoR2 { return []PseudoR2{R2McFadden, R2Nagelkerke, R2Tjur, R2CoxSnell} }

// String returns the index's name.
func (r PseudoR2) String() string { return string(r) }

// Valid reports whether r is one of PseudoR2s.
func (r PseudoR2) Valid() bool { return slices.Contains(PseudoR2s(), r) }

// MarshalText returns the index's name.
func (r PseudoR2) MarshalText() ([]byte, error) { return []byte(r), nil }

// UnmarshalText accepts the names of PseudoR2s.
func (r *PseudoR2) UnmarshalText(b []byte) error {
	return unmarshalName("pseudo-R²", b, PseudoR2s(), r)
}
