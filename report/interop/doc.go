// Package interop writes ledgers in the formats other tools read: an
// Inspect AI evaluation log (.eval), which `inspect view` and
// inspect_ai.analysis.samples_df open, with one sample per episode, the
// graded outcomes as its scores and the calls as its transcript; and the
// dataset card of a Hugging Face dataset folder, generated from the ledger
// schema.
//
// It computes nothing: the outcomes are the graded episode's, and a
// score's mean is the share of episodes with the outcome.
package interop
