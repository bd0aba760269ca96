// Package prereg reads preregistrations — hypotheses with their estimands
// and decision rules, written before the data are seen — checks them
// against a ledger, locks them, and evaluates them with the analysis
// engine into verdicts with provenance.
//
// # Format
//
// A preregistration is one YAML document (docs/prereg.md is the reference
// of every key; docs/prereg.schema.json lets editors check it). Each
// hypothesis has an id, a statement, a population (a where expression) and
// one or more parts, each an estimand — a rate, a difference of rates, a
// paired McNemar test, an odds ratio from logit, GEE or GLMM, a
// coefficient of any model the engine fits (binomial, Poisson or
// Gaussian; GLM, GEE or GLMM; interactions and random slopes), read as a
// ratio exp(β) or a difference β, a Shapley share, or a TOST — with a
// decision rule that maps it to supported, not
// supported or inconclusive; "not computable" with its reason is the
// fourth outcome. Parse reports every problem as file:line: message.
//
// # Lock
//
// Lock writes FILE.lock with the file's SHA-256, the UTC time and the
// toolkit version; CheckLockOrigin compares it with the file and with the
// ledger's creation time (an Origin: a flag, the LEDGER.created.json of
// drive and serve, Parquet created_utc metadata, or a simulated ledger's
// seed, for which the order does not apply). This is tamper evidence for
// readers of a study, not security: anyone can rewrite both.
//
// # The paper's file
//
// The embedded paper.yaml is the LIMBO paper's H1–H6 written as a
// preregistration (Paper; `prereg init --paper` writes it): the worked
// example of the format, and the file power analyses default to. Package
// analysis/paper evaluates it and lays it out as the paper's Table 12.
package prereg
