package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/stats"
)

// Formats are the table formats, in the order the report writes them.
var Formats = []string{"text", "md", "latex", "csv", "json"}

// Ext is the file extension of a format.
func Ext(format string) string {
	switch format {
	case "text":
		return "txt"
	case "latex":
		return "tex"
	}
	return format
}

// dash marks an undefined number for people.
const dash = "–"

// human renders a cell rounded for people; showCI adds its interval.
func human(c paper.Cell, showCI bool) string {
	if c.Kind == paper.Text {
		return c.Text
	}
	if math.IsNaN(c.Value) {
		return dash
	}
	switch c.Kind {
	case paper.Percent:
		s := fixed(c.Value, c.Digits)
		if showCI && !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) {
			s += " [" + fixed(c.Lo, c.Digits) + "," + fixed(c.Hi, c.Digits) + "]"
		}
		return s
	case paper.PP, paper.Delta:
		s := fixed(c.Value, c.Digits)
		if !strings.HasPrefix(s, "-") {
			s = "+" + s // a difference that rounds to zero reads "+0.0", never "-0.0"
		}
		return s
	case paper.PValue:
		if c.Below {
			return PBound
		}
		return PValue(c.Value)
	case paper.Count:
		return strconv.FormatFloat(c.Value, 'f', 0, 64)
	case paper.Ratio:
		s := fixed(c.Value, 1)
		if !math.IsNaN(c.Lo) {
			s += " (" + fixed(c.Lo, 1) + "–" + fixed(c.Hi, 1) + ")"
		}
		return s
	}
	return fixed(c.Value, c.Digits)
}

// fixed formats v with d decimals, avoiding "-0".
func fixed(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.TrimLeft(s, "-0.") == "" && strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	return s
}

// PBound is how text, Markdown and LaTeX print a p-value that underflowed
// (below stats.PFloor): the bound, never "0". CSV and JSON write the bound
// 1e-300 as the number and log₁₀ p beside it (log10_p), which tells a
// bound from a value.
const PBound = "< 1e-300"

// PValue prints a p-value with two significant digits, in scientific
// notation below 0.001.
func PValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return dash
	case p >= 1:
		return "1"
	case p < stats.PFloor: // underflowed: the bound, never "0"
		return PBound
	case p < 1e-3:
		s := strconv.FormatFloat(p, 'e', 1, 64)
		// 1.5e-09 → 1.5e-9
		s = strings.Replace(s, "e-0", "e-", 1)
		return s
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// full renders a number at full precision for machines (empty for NaN).
func full(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// header returns a column's one-line header.
func header(col paper.Column) string {
	if col.Group != "" {
		return col.Group + ": " + col.Label
	}
	return col.Label
}

// FormatLog10P formats the p-value 10^lp in scientific notation with sig
// significant digits (at least 1), as %.{sig−1}e does for a float64 but
// without underflow (stats.McNemarExactLog10 gives such lp):
// FormatLog10P(-411.5, 2) is "3.2e-412". p-values at or
// above 1e-4 are printed in fixed notation with sig significant digits.
func FormatLog10P(lp float64, sig int) string {
	if sig < 1 {
		sig = 1
	}
	if math.IsNaN(lp) {
		return "NaN"
	}
	if lp >= -4 {
		return fmt.Sprintf("%.*g", sig, math.Pow(10, math.Min(lp, 0)))
	}
	e := math.Floor(lp)
	mant := math.Pow(10, lp-e)
	// Rounding the mantissa can carry into the next power of ten.
	if s := fmt.Sprintf("%.*f", sig-1, mant); s == fmt.Sprintf("%.*f", sig-1, 10.0) {
		mant /= 10
		e++
	}
	return fmt.Sprintf("%.*fe-%02d", sig-1, mant, int(-e))
}
