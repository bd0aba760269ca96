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
