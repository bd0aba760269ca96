package analysis

import "github.com/limbo-toolkit/limbo/stats"

// numericTest reports whether t tests the differences of a numeric
// outcome (t, wilcoxon) rather than a McNemar table.
func numericTest(t stats.PairedTest) bool {
	return t == stats.PairedStudentT || t == stats.PairedWilcoxon
}
