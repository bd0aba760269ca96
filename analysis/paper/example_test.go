package paper_test

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Analyze computes the paper's tables, hypotheses and figure data from a
// ledger, reading only the columns they need; Table 3 uses the pooled
// ICC unless Options.ICC says otherwise, and its caption says which.
func ExampleAnalyze() {
	in := filepath.Join("..", "..", "testdata", "ledger", "sample.csv")
	d, err := paper.ReadData(in, ledger.ReadOptions{Columns: paper.Columns(paper.TableNumbers)})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := paper.Analyze(d, paper.Options{})
	var ids []string
	for _, t := range res.Tables {
		ids = append(ids, t.ID())
	}
	fmt.Println(strings.Join(ids, " "))
	fmt.Println(len(res.Hypotheses), "hypotheses")
	fmt.Println(strings.Contains(res.Table(3).Caption, "one ICC over task templates pooled across the columns"))
	// Output:
	// table3 table4 table5 table6 table7 table8 table9 table10 table11 table12 table13
	// 6 hypotheses
	// true
}
