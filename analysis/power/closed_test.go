package power

import (
	"math"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// readRef reads a reference table written by a script under testdata/.
func readRef(t *testing.T, name string) [][]string {
	t.Helper()
	rows := testfile.ReadCSV(t, "testdata/"+name)
	if len(rows) < 2 {
		t.Fatalf("%s: no reference rows", name)
	}
	return rows[1:]
}

func floats(t *testing.T, row []string) []float64 {
	t.Helper()
	out := make([]float64, len(row))
	for i, s := range row {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%v: field %d: %v", row, i, err)
		}
		out[i] = v
	}
	return out
}

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestTwoProportionsR checks TwoProportions and DesignEffect against R
// 4.x power.prop.test and the written-out formula (testdata/twoprop.R).
func TestTwoProportionsR(t *testing.T) {
	for _, row := range readRef(t, "twoprop.csv") {
		x := floats(t, row[1:])
		p1, p2, n1, n2, alpha, m, rho, want := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
		deff := DesignEffect(m, rho)
		got := TwoProportions(p1, p2, n1/deff, n2/deff, alpha)
		if !near(got, want, 1e-9) {
			t.Errorf("%s p1=%v p2=%v n=%v/%v α=%v deff=%v: got %.12g, want %.12g", row[0], p1, p2, n1, n2, alpha, deff, got, want)
		}
	}
}

// TestMcNemarTOSTHand checks McNemar and TOST against the values of the
// formulas computed in Python (testdata/mcnemar_tost.py).
func TestMcNemarTOSTHand(t *testing.T) {
	for _, row := range readRef(t, "mcnemar_tost.csv") {
		x := floats(t, row[1:])
		var got float64
		switch row[0] {
		case "mcnemar":
			got = McNemar(x[0], x[1], x[2], x[3])
		case "tost":
			got = TOST(x[0], x[1], x[2], x[3], x[4], x[5])
		default:
			t.Fatalf("unknown case %q", row[0])
		}
		if want := x[6]; !near(got, want, 1e-9) {
			t.Errorf("%s %v: got %.12g, want %.12g", row[0], x[:6], got, want)
		}
	}
}

func TestClosedFormEdges(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		nan  bool
	}{
		{"two proportions, empty arm", TwoProportions(0.2, 0.1, 0, 10, 0.05), true},
		{"two proportions, both rates 0", TwoProportions(0, 0, 10, 10, 0.05), true},
		{"mcnemar, no discordant pair", McNemar(0, 0, 100, 0.05), true},
		{"tost, zero SE", TOST(0, 0, 10, 10, 0.05, 0.05), true},
	}
	for _, tt := range tests {
		if math.IsNaN(tt.got) != tt.nan {
			t.Errorf("%s: got %v, want NaN %v", tt.name, tt.got, tt.nan)
		}
	}
	// Power rises with n and with the effect.
	if a, b := TwoProportions(0.3, 0.2, 50, 50, 0.025), TwoProportions(0.3, 0.2, 200, 200, 0.025); !(a < b) {
		t.Errorf("two proportions: power at n=50 (%v) not below n=200 (%v)", a, b)
	}
	if a, b := McNemar(0.12, 0.08, 200, 0.05), McNemar(0.16, 0.04, 200, 0.05); !(a < b) {
		t.Errorf("mcnemar: power with δ=0.04 (%v) not below δ=0.12 (%v)", a, b)
	}
}
