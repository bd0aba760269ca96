// Package jsonnum holds the number of this module's JSON outputs: a
// float64 written in strconv's shortest 'g' form, and null when NaN or
// infinite (encoding/json refuses those, and a reader wants "no value").
package jsonnum

import (
	"math"
	"strconv"
)

// Float is a float64 that marshals as the shortest 'g' form, NaN and ±Inf
// as null.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}
