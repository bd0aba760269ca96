package analysis

import "testing"

// TestWarningRenamed checks that a warning's advice names the spec field
// by default and a caller's words after Renamed, also when the caller has
// prefixed the message (as a preregistration names its fit), and that a
// warning without placeholders is left alone.
func TestWarningRenamed(t *testing.T) {
	var w warnings
	w.addField(WarnFewClusters, "Cov", "only %d clusters; consider {Cov} bias-reduced or kc", 5)
	w.addf(WarnUndefined, "no {Cov} here: %s", "{Cov}")
	few, other := w.list[0], w.list[1]
	if want := "only 5 clusters; consider Cov bias-reduced or kc"; few.Msg != want {
		t.Errorf("library text %q, want %q", few.Msg, want)
	}
	flags := map[string]string{"Cov": "--cov"}
	if got, want := few.Renamed(flags).Msg, "only 5 clusters; consider --cov bias-reduced or kc"; got != want {
		t.Errorf("renamed %q, want %q", got, want)
	}
	few.Msg = "GEE: " + few.Msg
	r := few.Renamed(flags)
	if want := "GEE: only 5 clusters; consider --cov bias-reduced or kc"; r.Msg != want {
		t.Errorf("prefixed and renamed %q, want %q", r.Msg, want)
	}
	if r.Code != WarnFewClusters || r.Field != "Cov" {
		t.Errorf("renamed warning lost its code or field: %+v", r)
	}
	if again := r.Renamed(map[string]string{"Cov": "cov:"}); again.Msg != r.Msg {
		t.Errorf("a second rename changed %q to %q", r.Msg, again.Msg)
	}
	if got := other.Renamed(flags).Msg; got != "no {Cov} here: {Cov}" {
		t.Errorf("a warning without fields renamed to %q", got)
	}
}
