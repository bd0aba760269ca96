package prereg

import (
	"encoding"
	"fmt"
	"strings"
	"testing"
)

// enumCase checks one enumeration: every value reads back from its
// String, and an unknown one is an error naming the key and every value.
func enumCase[T interface {
	~string
	fmt.Stringer
}, P interface {
	*T
	encoding.TextUnmarshaler
}](key string, values []T) func(t *testing.T) {
	return func(t *testing.T) {
		if len(values) < 2 {
			t.Fatalf("%s: %d values", key, len(values))
		}
		for _, v := range values {
			var got T
			if err := P(&got).UnmarshalText([]byte(v.String())); err != nil || got != v {
				t.Errorf("%q: %q, %v", v, got, err)
			}
		}
		var got T
		err := P(&got).UnmarshalText([]byte("nonsense"))
		if err == nil || got != "" {
			t.Fatalf("nonsense: %q, %v", got, err)
		}
		if !strings.HasPrefix(err.Error(), key+` "nonsense": want `) {
			t.Errorf("error %q does not name the key %s", err, key)
		}
		for _, v := range values {
			if !strings.Contains(err.Error(), string(v)) {
				t.Errorf("error %q does not name %q", err, v)
			}
		}
	}
}

// TestEnums: each fixed-value key reads its values and names them when
// given another.
func TestEnums(t *testing.T) {
	t.Run("kind", enumCase[Kind]("kind", Kinds))
	t.Run("direction", enumCase[Direction]("direction", Directions))
	t.Run("use", enumCase[Use]("use", Uses))
	t.Run("analysis", enumCase[Analysis]("analysis", Analyses))
	t.Run("combine", enumCase[Combine]("combine", Combines))
	t.Run("if_not_computable", enumCase[IfNotComputable]("if_not_computable", IfNotComputables))
	t.Run("adjust", enumCase[Adjust]("adjust", Adjusts))
	t.Run("model", enumCase[Model]("model", Models))
	t.Run("scale", enumCase[Scale]("scale", Scales))
	t.Run("test", enumCase[McNemarTest]("test", McNemarTests))
	t.Run("r2", enumCase[R2]("r2", R2s))
	t.Run("method", enumCase[TOSTMethod]("method", TOSTMethods))
}

// TestEnumsKnownToTheParser: the values the types list are the ones the
// parser accepts, so the two cannot drift apart: every kind has its keys.
func TestEnumsKnownToTheParser(t *testing.T) {
	for _, k := range Kinds {
		if _, ok := kindKeys[k]; !ok {
			t.Errorf("kind %s has no keys", k)
		}
	}
	if len(kindKeys) != len(Kinds) {
		t.Errorf("%d kinds with keys, %d kinds", len(kindKeys), len(Kinds))
	}
}
