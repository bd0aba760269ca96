package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// JoinSeconds formats a list of seconds as prove's flags take it: "30,60,120".
func JoinSeconds(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

// ParseSeconds reads a list of seconds as JoinSeconds writes it: comma
// separated, empty items skipped, each a number in [0, 86400]. The error
// names the first item that is not, or says the list is empty.
func ParseSeconds(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || x != x || x < 0 || x > 86400 {
			return nil, fmt.Errorf("%q is not a number of seconds in [0, 86400]", f)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil, errors.New("no values")
	}
	return out, nil
}
