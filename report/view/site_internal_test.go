package view

import (
	"math/bits"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The flag bits the pages test (Flag*) are those of flagNames, from which
// Build sets them.
func TestFlagNames(t *testing.T) {
	for _, tc := range []struct {
		flag uint16
		name string
	}{
		{FlagDuplicated, "duplicated"},
		{FlagEOS, "eos"},
		{FlagOverclaim, "overclaim"},
		{FlagTaskSuccess, "task_success"},
		{FlagFaultFired, "fault_fired"},
		{FlagReportedSuccess, "reported_success"},
		{FlagUncertaintyListed, "uncertainty_listed"},
		{FlagReversible, "reversible"},
	} {
		if got := flagNames[bits.TrailingZeros16(tc.flag)]; got != tc.name {
			t.Errorf("bit of %s is flagNames' %s", tc.name, got)
		}
	}
}

// schemaColumns refuses a name that is not a schema column of the kind
// asked for, which would otherwise show as empty values.
func TestSchemaColumnsChecksKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"experiment", true},
		{"seed", false}, // an integer
		{"no_such_column", false},
	} {
		func() {
			defer func() {
				if r := recover(); (r == nil) != tc.ok {
					t.Errorf("%s: panic %v, want ok %v", tc.name, r, tc.ok)
				}
			}()
			schemaColumns([]string{tc.name}, ledger.KindString)
		}()
	}
}
