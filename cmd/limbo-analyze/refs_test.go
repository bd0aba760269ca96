package main

import (
	"reflect"
	"testing"
)

func TestParseRefs(t *testing.T) {
	tests := []struct {
		in   []string
		want map[string]string
		err  string
	}{
		{nil, map[string]string{}, ""},
		{[]string{"model=m1", "contract=native"}, map[string]string{"model": "m1", "contract": "native"}, ""},
		{[]string{"cue="}, map[string]string{"cue": ""}, ""},
		{[]string{"a=b=c"}, map[string]string{"a": "b=c"}, ""},
		{[]string{"model"}, nil, `Refs "model": want column=level`},
		{[]string{"=m1"}, nil, `Refs "=m1": want column=level`},
		{[]string{"model=a", "model=b"}, nil, "Refs model given twice"},
	}
	for _, tc := range tests {
		got, err := parseRefs(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseRefs(%q): err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseRefs(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
