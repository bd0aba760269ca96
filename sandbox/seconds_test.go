package sandbox

import (
	"slices"
	"testing"
)

// ParseSeconds reads what JoinSeconds writes and names the bad item.
func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want []float64
		err  string
	}{
		{"30, 60,,120.5", []float64{30, 60, 120.5}, ""},
		{JoinSeconds(DefaultTailDelays), DefaultTailDelays, ""},
		{"0,86400", []float64{0, 86400}, ""},
		{"30,abc", nil, `"abc" is not a number of seconds in [0, 86400]`},
		{"-1", nil, `"-1" is not a number of seconds in [0, 86400]`},
		{"NaN", nil, `"NaN" is not a number of seconds in [0, 86400]`},
		{"86401", nil, `"86401" is not a number of seconds in [0, 86400]`},
		{" , ", nil, "no values"},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSeconds(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestJoinSeconds(t *testing.T) {
	if got := JoinSeconds([]float64{30, 0.5, 7200}); got != "30,0.5,7200" {
		t.Errorf("got %q", got)
	}
}
