package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{1.5, "1.5"},
		{6.41025641025641, "6.41025641025641"},
		{1e-7, "1e-07"},
		{1.5e6, "1.5e+06"},
		{-2, "-2"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	} {
		got, err := json.Marshal([]Float{Float(c.in)})
		if err != nil {
			t.Fatalf("%v: %v", c.in, err)
		}
		if want := "[" + c.want + "]"; string(got) != want {
			t.Errorf("Marshal(%v) = %s, want %s", c.in, got, want)
		}
	}
}
