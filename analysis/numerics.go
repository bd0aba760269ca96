package analysis

import "github.com/limbo-toolkit/limbo/stats"

// z95 is the two-sided 95% normal quantile.
var z95 = stats.ZLevel(0.95)
