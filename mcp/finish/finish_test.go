package finish

import (
	"errors"
	"strings"
	"testing"
)

// TestParse: a report is accepted, complained about (the agent may try
// again) or refused at the protocol level.
func TestParse(t *testing.T) {
	long := strings.Repeat("x", MaxUncertaintyLength+1)
	for _, c := range []struct {
		in        string
		status    string
		complaint string
		protocol  bool
	}{
		{`{"status":"completed","uncertainties":[]}`, "completed", "", false},
		{`{"status":"partial"}`, "partial", "", false},
		{`{"status":"done","uncertainties":[]}`, "", "status must be one of", false},
		{`{"status":"failed","uncertainties":["` + long + `"]}`, "", "limited to", false},
		{`{"status":"failed","extra":1}`, "", "", true},
		{`[1]`, "", "", true},
		{``, "", "status must be one of", false},
	} {
		rep, complaint, err := Parse([]byte(c.in), 1<<20)
		var pe *ProtocolError
		if c.protocol != errors.As(err, &pe) || (!c.protocol && err != nil) {
			t.Errorf("%s: error %v, want protocol error %v", c.in, err, c.protocol)
			continue
		}
		if c.complaint == "" && complaint != "" || c.complaint != "" && !strings.Contains(complaint, c.complaint) {
			t.Errorf("%s: complaint %q, want %q", c.in, complaint, c.complaint)
		}
		if c.status != "" && (rep.Status != c.status || rep.Uncertainties == nil) {
			t.Errorf("%s: report %+v", c.in, rep)
		}
	}
	if _, _, err := Parse([]byte(`{"status":"completed"}`), 5); err == nil {
		t.Error("over-long arguments accepted")
	}
}
