// Package stats holds the numerics behind the LIMBO tables: Wilson and Kish
// intervals, McNemar and multiplicity adjustment, TOST and Newcombe
// intervals, logistic regression (IRLS, Firth), pseudo-R² and GEE.
//
// It takes slices and gonum matrices and returns small result structs; it
// does no I/O and knows nothing of ledgers. Caller mistakes (length
// mismatches, impossible arguments) panic with a "stats: " prefix; failures
// that depend on the data (separation, singular matrices, no convergence)
// are returned as errors or flagged in results. Undefined numbers are NaN.
// Each estimator's doc comment gives its formula and source; the tests
// compare against statsmodels 0.13.5, R 4.2.2 and geepack 1.3.9 with the
// reference values and scripts in testdata/stats (docs/methods.md, Reference values, lists them).
//
// # Proportions
//
// Wilson, WilsonCC, WeightedProportion, KishESS, KishDeff; clustering with
// ICCANOVA, ClusterNEff, ClusterMStar, ClusterDeffWeighted and the
// design-based (linearised) DesignProportion; ZLevel and TLevel give the
// quantiles.
//
// # Paired and multiple tests
//
// McNemarExact, McNemarMidP, McNemarChi2, McNemarOR; HolmAdjust,
// BonferroniAdjust, BHAdjust, BYAdjust, and Adjust (AdjustLog10 on log₁₀
// p-values) for a typed choice of them. McNemarExactLog10 and McNemarMidPLog10 give
// log₁₀ p, finite where the p-value underflows float64; ReportP turns it
// into a reportable number or bound (never "p = 0"), and
// report.FormatLog10P into text.
//
// # Equivalence
//
// TOSTIndep (a TOSTMethod: Wald, Agresti–Caffo, score), TOSTPaired,
// NewcombeIndep, NewcombePaired, PairedWaldCI; RateDiffWald, WaldInterval
// and TOSTWaldP for a difference on effective sample sizes. p_TOST is the
// larger one-sided p-value. NormalCDF and NormalUpper are the normal
// probabilities every package uses.
//
// # Regression
//
// Logistic (IRLS with separation detection, or Firth's penalised fit),
// CollapsePatterns (identical rows to frequency weights), McFadden,
// CoxSnell, Nagelkerke, Tjur, TjurWeighted, WaldTest, and GEE (logit link,
// independence or exchangeable working correlation, statsmodels or geepack
// moment conventions, naive, robust, Mancl–DeRouen and Kauermann–Carroll
// covariances).
//
// # Contrasts
//
// AverageResponse (a G-computation mean of a model's response over rows,
// at the population level or marginal over a normal random part),
// MeanDifference and MeanRatio (average contrasts with delta-method SEs),
// DeltaSE.
//
// # Bootstrap
//
// ReplicateRand (a replicate's PCG stream keyed by seed and index),
// ClusterCounts, Replicates and Jackknife (parallel, each row in its own
// slot), PercentileCI, BCaCI, BootQuantile, BootSE.
//
// # Repeated runs
//
// PassHatK (the unbiased C(c,k)/C(n,k)) and PairAgreement.
package stats
