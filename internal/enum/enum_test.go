package enum

import (
	"strconv"
	"testing"
)

type color string

var colors = []color{"red", "green", "blue"}

// Unmarshal takes the listed values only, leaves the destination as it is
// on an error, and the error names the field and every value.
func TestUnmarshal(t *testing.T) {
	c := color("red")
	if err := Unmarshal("color", []byte("blue"), colors, &c); err != nil || c != "blue" {
		t.Fatalf("blue: %q, %v", c, err)
	}
	for _, in := range []string{"Blue", "", "\"x\ty\""} {
		err := Unmarshal("color", []byte(in), colors, &c)
		want := "color " + strconv.Quote(in) + ": want red, green or blue"
		if err == nil || err.Error() != want || c != "blue" {
			t.Errorf("%q: %q, %v; want blue unchanged and %s", in, c, err, want)
		}
	}
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		in   []color
		want string
	}{{nil, ""}, {colors[:1], "red"}, {colors[:2], "red or green"}, {colors, "red, green or blue"}} {
		if got := OrList(tc.in); got != tc.want {
			t.Errorf("OrList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
