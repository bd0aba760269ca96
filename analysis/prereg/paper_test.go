package prereg

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// simulate runs testdata/design.json (E1 and E3, small) with a seed and
// grades every episode, as `simulate` and `grade` do.
func simulate(t testing.TB, seed uint64) []*ledger.Episode {
	t.Helper()
	m, err := design.Load(filepath.Join("testdata", "design.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := design.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	// The profile the frozen numbers were simulated with: the embedded one
	// moves with the simulator's calibration (docs/simulation.md).
	prof, err := agent.LoadProfiles(filepath.Join("testdata", "profiles-frozen.json"))
	if err != nil {
		t.Fatal(err)
	}
	sim := design.NewSimulator(plan, prof, seed)
	if err := sim.Check(); err != nil {
		t.Fatal(err)
	}
	eps := make([]*ledger.Episode, plan.Len())
	for i := range eps {
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		e, err := sandbox.Grade(raw)
		if err != nil {
			t.Fatal(err)
		}
		eps[i] = &e
	}
	return eps
}

// statRef says where a statistic of the Go hypotheses lives in the
// evaluation of the embedded file.
type statRef struct {
	hyp, part, level string
	extra            string // "" = the part's estimate
	field            string // value, p, bound
}

// paperStats maps every statistic of paper.Hypotheses to the embedded
// file's evaluation.
var paperStats = map[string]map[string]statRef{
	"H1": {
		"dup_rate_eventual_missing": {"H1", "rate", "", "", "value"},
		"gee_or":                    {"H1", "gee", "", "", "value"},
		"gee_p":                     {"H1", "gee", "", "", "p"},
		"mixed_or":                  {"H1", "mixed", "", "", "value"},
	},
	"H2": {
		"contract_share_pooled": {"H2", "contract-vs-model", "", "", "value"},
		"model_share_pooled":    {"H2", "contract-vs-model", "", "", "bound"},
		"harness_share_e3":      {"H2", "harness", "", "", "value"},
		"model_share_resolves":  {"H2", "model-resolvable", "", "", "value"},
		"contract_share_cannot": {"H2", "contract-unresolvable", "", "", "value"},
	},
	"H3": {
		"dup_rate_eventual": {"H3", "difference", "", "rate_pct_eventual", "value"},
		"dup_rate_strong":   {"H3", "difference", "", "rate_pct_strong", "value"},
		"gee_or":            {"H3", "gee", "", "", "value"},
		"gee_p":             {"H3", "gee", "", "", "p"},
	},
	"H4": {
		"diff_pp":            {"H4", "", "", "", "value"},
		"p_tost":             {"H4", "", "", "", "p"},
		"blind_irreversible": {"H4", "", "", "rate_pct_false", "value"},
		"blind_reversible":   {"H4", "", "", "rate_pct_true", "value"},
		"icc":                {"H4", "", "", "icc", "value"},
	},
	"H5": {
		"completed_no_uncertainty": {"H5", "silent", "", "", "value"},
		"overclaim":                {"H5", "overclaim", "", "", "value"},
	},
}

func find(t *testing.T, r *Result, ref statRef) (Stat, float64) {
	t.Helper()
	for _, v := range r.Verdicts {
		if v.ID != ref.hyp {
			continue
		}
		for _, p := range v.Parts {
			if p.Name != ref.part || p.Level != ref.level {
				continue
			}
			if ref.extra == "" {
				return p.Estimate, p.Bound
			}
			for _, s := range p.Extra {
				if s.Name == ref.extra {
					return s, p.Bound
				}
			}
		}
	}
	t.Fatalf("no statistic %+v in the evaluation", ref)
	return Stat{}, 0
}

// close reports whether a and b agree to 1e-9 relative (or absolute near
// zero); the two paths sum in different orders, so the last bits differ.
func closeTo(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// glmmClose reports whether a and b agree to 1e-5 relative: the GLMM's
// deviance is flat to 1e-10 near its optimum, so β is determined to
// about 1e-6 only, and the Go H1 fitted it by mixed.FitLogit's Newton
// iterations where the file's glmm model now takes mixed.Fit's
// quasi-Newton path (the log-likelihoods agree to 1e-10).
func glmmClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-5*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestPaperFileMatchesGoHypotheses evaluates the embedded file on three
// simulated seeds and on the committed sample and compares it with the
// frozen numbers of the Go H1–H6 it replaced (testdata/paper-h1h6.json):
// the same verdicts and the same numbers (values, intervals, p-values).
func TestPaperFileMatchesGoHypotheses(t *testing.T) {
	f, err := Paper()
	if err != nil {
		t.Fatal(err)
	}
	frozen := readFrozen(t)
	cases := paperCases(t)
	if len(frozen) != len(cases) {
		t.Fatalf("%s has %d cases, want %d", frozenPath, len(frozen), len(cases))
	}
	for name, eps := range cases {
		t.Run(name, func(t *testing.T) {
			hs, ok := frozen[name]
			if !ok || len(hs) != 6 {
				t.Fatalf("%s: case %s has %d hypotheses, want H1–H6", frozenPath, name, len(hs))
			}
			r, err := f.EvaluateEpisodes(eps)
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for _, h := range hs {
				v := verdict(t, r, h.ID)
				if v.Verdict != h.Verdict {
					t.Errorf("%s: verdict %q, Go code %q (reason %s)", h.ID, v.Verdict, h.Verdict, v.Reason)
				}
				for _, s := range h.Stats {
					ref, ok := paperStats[h.ID][s.Name]
					if h.ID == "H6" {
						ref, ok = h6Ref(s.Name)
					}
					if !ok {
						t.Errorf("%s: statistic %s has no counterpart", h.ID, s.Name)
						continue
					}
					got, bound := find(t, r, ref)
					want := [3]float64{float64(s.Value), float64(s.Lo), float64(s.Hi)}
					have := [3]float64{got.Value, got.Lo, got.Hi}
					switch ref.field {
					case "p":
						want, have = [3]float64{float64(s.Value)}, [3]float64{got.P}
					case "bound":
						want, have = [3]float64{float64(s.Value)}, [3]float64{bound}
					}
					if ref.extra != "" || (ref.field == "value" && math.IsNaN(float64(s.Lo))) {
						want[1], want[2], have[1], have[2] = 0, 0, 0, 0 // the Go code reports no interval here
					}
					for i := range want {
						if ref.part == "mixed" && glmmClose(have[i], want[i]) {
							continue
						}
						if !closeTo(have[i], want[i]) {
							t.Errorf("%s %s[%d] = %v, Go code %v", h.ID, s.Name, i, have[i], want[i])
						}
					}
					compared++
				}
			}
			if compared < 20 {
				t.Errorf("only %d statistics compared", compared)
			}
		})
	}
}

func h6Ref(name string) (statRef, bool) {
	for _, p := range []struct{ prefix, part, extra string }{{"guard_dup_", "guard-duplicates", ""}, {"ts_loss_pp_", "ts-loss", ""}} {
		if len(name) > len(p.prefix) && name[:len(p.prefix)] == p.prefix {
			return statRef{"H6", p.part, name[len(p.prefix):], p.extra, "value"}, true
		}
	}
	return statRef{}, false
}
