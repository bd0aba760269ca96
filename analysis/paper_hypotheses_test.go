package analysis_test

import (
	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
)

// The internal tests evaluate Table 12 with the embedded paper file.
func init() { analysis.PaperHypotheses = prereg.PaperHypotheses }
