// Package replay is the agent-side study on top of the engine: the
// tables of the replay design (limbo-analyze simulate --design replay;
// docs/simulation.md, Agent-side faults), which cross crashes, retried
// runs, re-plans, delegation and two workers with five guards, and the
// design simulated in process for the one-command report. Its hypotheses
// are the embedded preregistration prereg.Replay; package report renders
// both.
package replay
