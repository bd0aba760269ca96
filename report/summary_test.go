package report

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The summary of the sample prints the text validate --summary pins in
// testdata/ledger/sample.summary.txt (written with the path as the
// command's test names it); its JSON is one line that reads back.
func TestSummary(t *testing.T) {
	const path = "../../testdata/ledger/sample.csv" // as cmd/limbo-analyze names it
	want, err := os.ReadFile("../testdata/ledger/sample.summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	c := ledger.CheckFile("../testdata/ledger/sample.csv", ledger.ReadOptions{}, true, func(err error) { t.Errorf("error: %v", err) })
	if c.Summary == nil {
		t.Fatal("no summary")
	}
	c.Summary.File = path
	var text, js bytes.Buffer
	if err := Summary(&text, c.Summary, "text"); err != nil || text.String() != string(want) {
		t.Errorf("text: %v\n%s\nwant:\n%s", err, text.String(), want)
	}
	if err := Summary(&js, c.Summary, "json"); err != nil {
		t.Fatal(err)
	}
	var back ledger.Summary
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || bytes.Count(js.Bytes(), []byte("\n")) != 1 ||
		back.Rows != c.Summary.Rows || back.Distinct["model"] != c.Summary.Distinct["model"] || back.BoolSums["duplicated"] != c.Summary.BoolSums["duplicated"] {
		t.Errorf("json: %v\n%s", err, js.String())
	}
}
