package prereg

import (
	_ "embed"
)

// paperFile is the paper's H1–H6 as a preregistration.
//
//go:embed paper.yaml
var paperFile []byte

// PaperName is the name the embedded paper file goes by in messages and
// provenance.
const PaperName = "paper.yaml (embedded)"

// PaperBytes returns a copy of the embedded file of the paper's H1–H6.
func PaperBytes() []byte { return append([]byte(nil), paperFile...) }

// Paper parses the embedded file of the paper's H1–H6.
func Paper() (*File, error) { return Parse(PaperName, paperFile) }

// replayFile is the agent-side design's hypotheses R1–R9 as a
// preregistration (docs/simulation.md, Agent-side faults).
//
//go:embed replay.yaml
var replayFile []byte

// ReplayName is the name the embedded replay file goes by.
const ReplayName = "replay.yaml (embedded)"

// ReplayBytes returns a copy of the embedded file of the agent-side
// design's hypotheses.
func ReplayBytes() []byte { return append([]byte(nil), replayFile...) }

// Replay parses the embedded file of the agent-side design's hypotheses.
func Replay() (*File, error) { return Parse(ReplayName, replayFile) }
