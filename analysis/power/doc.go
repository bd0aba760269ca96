// Package power estimates the power of a preregistration (package
// prereg) by simulation: it regenerates a design with the simulator, or
// resamples a pilot ledger by template, many times at every size of a
// grid, evaluates the preregistered analyses in memory on each
// replication, and reports per hypothesis the share of replications that
// reach "supported" with a Wilson interval for the Monte Carlo error, the
// share "not computable", and the smallest size that reaches a target.
// Closed-form approximations (two proportions with a design effect,
// McNemar, TOST) are computed beside the simulation for the estimands that
// have one.
//
// # Seeds
//
// Replication r (0-based) runs under RepSeed(seed, r) = SplitMix64(seed +
// r·γ) at every size, so the curves share their draws (common random
// numbers); repeat k > 0 of a replication (episodes scaled above 1) runs
// under RunSeed(seed, r, k). A replication's result depends on nothing
// else, so any number of workers gives the same bytes.
//
// # Sizes
//
// A size is a multiplier of the base design (design.Scale: episodes per
// cell or instances per template) or of the pilot's worlds per template.
//
// docs/power.md has a worked example.
package power
