package report

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

func TestSelectTables(t *testing.T) {
	d, err := table.Read("../testdata/ledger/sample.csv", ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		number   int
		compare  bool
		want     []int // table numbers returned
		wantWarn string
	}{
		{"one", 3, false, []int{3}, ""},
		{"one compared", 3, true, []int{3}, ""},
		{"unpublished compared", 11, true, nil, "publishes no numbers of Table 11"},
		{"all", 0, false, paper.TableNumbers, ""},
	}
	for _, tt := range tests {
		var warns []string
		got, err := SelectTables(d, tt.number, tt.compare, paper.Options{}, func(m string) { warns = append(warns, m) })
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var nums []int
		for _, tb := range got {
			nums = append(nums, tb.Number)
		}
		if len(nums) != len(tt.want) {
			t.Errorf("%s: tables %v, want %v", tt.name, nums, tt.want)
			continue
		}
		for i := range nums {
			if nums[i] != tt.want[i] {
				t.Errorf("%s: tables %v, want %v", tt.name, nums, tt.want)
				break
			}
		}
		if tt.wantWarn != "" && !strings.Contains(strings.Join(warns, "\n"), tt.wantWarn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, warns, tt.wantWarn)
		}
	}
}
