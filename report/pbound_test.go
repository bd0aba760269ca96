package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// TestTableUnderflowedP: a p-value cell that underflowed (Below, Value the
// bound 1e-300, as Tables 10 and 13 build it) prints "< 1e-300" for people
// in every table format, and CSV and JSON keep the bound as the value with
// log₁₀ p beside it; an ordinary p-value cell is unchanged.
func TestTableUnderflowedP(t *testing.T) {
	n := math.NaN()
	tb := &paper.Table{
		Number: 13, Title: "t", Caption: "c", LabelHeader: []string{"Guard vs."},
		Columns: []paper.Column{{Key: "p", Label: "raw p"}},
		Rows: []paper.Row{
			{Key: "vanilla", Labels: []string{"vanilla"}, Cells: []paper.Cell{{Kind: paper.PValue, Value: 1e-300, Lo: n, Hi: n, NEff: n, Digits: 2, Below: true, Log10: -330.8}}},
			{Key: "aware", Labels: []string{"aware"}, Cells: []paper.Cell{{Kind: paper.PValue, Value: 8.7e-6, Lo: n, Hi: n, NEff: n, Digits: 2}}},
		},
	}
	for _, tc := range []struct{ format, want, ordinary string }{
		{"text", "< 1e-300", "8.7e-6"},
		{"md", "| vanilla | < 1e-300 |", "| aware | 8.7e-6 |"},
		{"latex", "vanilla & $<$ 1e-300", "aware & 8.7e-6"},
		{"csv", ",p,1e-300,,,,,< 1e-300 (log10 p = -330.8)", ",p,8.7e-06,,,,,\n"},
	} {
		var b bytes.Buffer
		if err := Table(&b, tb, tc.format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) || !strings.Contains(b.String(), tc.ordinary) {
			t.Errorf("%s lacks %q or %q:\n%s", tc.format, tc.want, tc.ordinary, b.String())
		}
	}
	var b bytes.Buffer
	if err := Table(&b, tb, "json"); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Rows []struct {
			Cells []struct {
				Value  float64  `json:"value"`
				Log10P *float64 `json:"log10_p"`
				Text   string   `json:"text"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	bound, ordinary := js.Rows[0].Cells[0], js.Rows[1].Cells[0]
	if bound.Value != 1e-300 || bound.Log10P == nil || *bound.Log10P != -330.8 || bound.Text != "< 1e-300 (log10 p = -330.8)" {
		t.Errorf("json bound cell %+v", bound)
	}
	if ordinary.Value != 8.7e-6 || ordinary.Log10P != nil || ordinary.Text != "" {
		t.Errorf("json ordinary cell %+v: want no log10_p or text", ordinary)
	}
}
