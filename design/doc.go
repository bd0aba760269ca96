// Package design holds the experiment grids of the LIMBO study as data: a
// manifest of experiments (E1, E1s, E2, E2k, E3, E3k, E5, E6 for the paper)
// that expands, deterministically and in a fixed order, into one episode
// specification per index.
//
// The paper's grid is the reference decomposition R5 of docs/simulation.md
// (exactly 25,930 episodes), embedded as paper.json; users replace it with
// their own manifest file of the same shape. The choices the paper leaves
// open ([I] in docs/simulation.md) are either blocks guarded by a named switch
// (no-fault controls, the five extra E3 cells, wait 3600, the E6 plain arm)
// or fields of the manifest (tail delay law and seed, gpt-4.1's coverage).
//
// # Episode order
//
// Experiments in manifest order; within an experiment, blocks in order;
// within a block, cells (harness, model) in order, then contract, condition
// and cue, then the block's worlds: task selections in order, templates in
// catalogue order, instances ascending, focal writes by index, modes in the
// block's order. An episode's index in this order is its identity for
// sharding and for the reorder buffer of parallel simulation.
//
// # Heavy-tailed delays
//
// timeout_late_tail worlds take stratified quantiles of a truncated Pareto
// law (docs/simulation.md, Heavy-tailed delay): δ_i = F⁻¹((i−0.5)/n), i = 1…n, permuted over the
// block's n distinct focal writes with the manifest's fixed tail seed, so
// every model and condition of the block meets the same δ on the same write.
package design
