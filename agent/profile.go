package agent

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
)

//go:embed profiles.json
var profilesJSON []byte

// ProfilesJSON returns the embedded profile file, for users who want to
// start their own from it.
func ProfilesJSON() []byte { return slices.Clone(profilesJSON) }

// Params are a model's action propensities (docs/simulation.md, Behavioural parameters). Each is a
// probability the agent acts on when the situation arises; none is an
// outcome.
type Params struct {
	VTo   float64 `json:"v_to"`  // read back before re-issuing after a timeout
	V500  float64 `json:"v_500"` // read back before re-issuing after an HTTP 500
	W     float64 `json:"w"`     // wait out a documented read-path lag before reading
	S     float64 `json:"s"`     // skip the re-issue after a positive read-back
	Pi    float64 `json:"pi"`    // re-issue at once after an empty read-back (rather than wait and re-check)
	G     float64 `json:"g"`     // give up the write after an empty read-back
	KNat  float64 `json:"k_nat"` // attach a key where the tool is natively keyed (a familiar key API)
	KKe   float64 `json:"k_ke"`  // attach a key where the description newly offers one
	R     float64 `json:"r"`     // reuse the same key on a re-issue (else mint a fresh one)
	A     float64 `json:"a"`     // without a key, re-issue with drifted arguments (same logical action)
	Orc   float64 `json:"oracle"`
	Eps   float64 `json:"eps"` // re-issue once more after a re-issue succeeded (residual slip)
	Compl float64 `json:"completed"`
	Quiet float64 `json:"silent"`
	// Hand the rest of the task over after confirming that an unkeyed
	// write hit by an ambiguous fault had taken effect (docs/simulation.md,
	// Residual EOS shortfall; [I]).
	Abandon float64 `json:"abandon,omitempty"`

	// Mechanisms shared by every model, copied from the profile file's
	// "mechanisms" block by Effective (never set per model).
	Mech Mechanisms `json:"-"`
}

// Mechanisms are the global parameters of behavioural mechanisms: each acts
// on what the agent observes (a tool's documented read lag, the clock), the
// same way for every model, and is 0 (off) unless the profile file sets it.
type Mechanisms struct {
	// EventualTrust is how much more an empty read is believed once the
	// agent has waited out the read path's documented lag: the propensity
	// to re-issue at once after such a read becomes 1 − (1−π)(1−t). A read
	// of a strong path (no documented lag) is unaffected. Why: the tool
	// description promises visibility within the bound, so a read after it
	// looks authoritative, although a late commit can still be in flight.
	EventualTrust float64 `json:"eventual_trust"`
	// VerifyHalfLifeS makes verifying cost: after an ambiguous fault the
	// propensity to read back (v_to, v_500) is multiplied by 2^(−lag/h) for
	// a read path documented to lag by lag seconds (h in seconds; 0 = no
	// cost). Why: a read that must wait minutes to be meaningful is skipped
	// more often than an immediate one. Wait-Δ policies verify regardless.
	VerifyHalfLifeS float64 `json:"verify_halflife_s"`
	// Misleading500 is how much less a model reads back after an HTTP 500
	// than after a timeout, on the logit scale: a model that omits v_500
	// gets v_500 = expit(logit(v_to) − d), so v_to of 0 or 1 gives the same
	// v_500 (a model that always verifies does so after a 500 too). Why:
	// a 500 is an error status and reads as "the write failed", a timeout
	// as "unknown"; the paper calls the executed 500 "misleading" (Table 2,
	// Table 4's "misleading 500"), and the error is the same for every
	// model, so the contrast is one number rather than one per model.
	Misleading500 float64 `json:"misleading_500"`
	// TimeoutWait is how much more a model waits out a read path's
	// documented lag before reading back after a timeout than after an
	// HTTP 500, on the logit scale: w is the propensity after a 500, and
	// after a timeout it is expit(logit(w) + e); w of 0 or 1 does not move.
	// Why: the same reading of the error as Misleading500, acting on the
	// next decision: a 500 says "failed", so an immediate empty read looks
	// like confirmation; a timeout says "unknown", and a request that may
	// still be on its way is worth waiting for (0 = off).
	TimeoutWait float64 `json:"timeout_wait"`
}

// shift is a sparse set of additive changes to Params; absent fields are 0.
type shift map[string]float64

func (p *Params) field(name string) (*float64, bool) {
	switch name {
	case "v_to":
		return &p.VTo, true
	case "v_500":
		return &p.V500, true
	case "w":
		return &p.W, true
	case "s":
		return &p.S, true
	case "pi":
		return &p.Pi, true
	case "g":
		return &p.G, true
	case "k_nat":
		return &p.KNat, true
	case "k_ke":
		return &p.KKe, true
	case "r":
		return &p.R, true
	case "a":
		return &p.A, true
	case "oracle":
		return &p.Orc, true
	case "eps":
		return &p.Eps, true
	case "completed":
		return &p.Compl, true
	case "silent":
		return &p.Quiet, true
	case "abandon":
		return &p.Abandon, true
	}
	return nil, false
}

func (p *Params) apply(s shift) {
	// Sorted names: floating-point addition order must not depend on map order.
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f, _ := p.field(k)
		*f = min(1, max(0, *f+s[k]))
	}
}

// Timing holds the agent's clock habits, in seconds.
type Timing struct {
	ThinkMinS       float64 `json:"think_min_s"`        // model turn before each call, uniform
	ThinkMaxS       float64 `json:"think_max_s"`        //
	JitterMeanS     float64 `json:"jitter_mean_s"`      // extra delay of a verification, exponential (docs/simulation.md, Time model)
	PatienceMinS    float64 `json:"patience_min_s"`     // wait before re-checking an empty read-back, uniform
	PatienceMaxS    float64 `json:"patience_max_s"`     //
	InProgressWaitS float64 `json:"in_progress_wait_s"` // wait after a 409 "still being processed"
	OraclePollS     float64 `json:"oracle_poll_s"`      // wait between oracle polls of an in-flight write
	MaxPolls        int     `json:"max_polls"`          // oracle polls before giving up waiting
}

// Model is one model's profile.
type Model struct {
	Name string `json:"name"`
	Params
	Conditions map[string]shift `json:"conditions,omitempty"`
}

// Profiles is the content of a profile file.
type Profiles struct {
	Version int     `json:"version"`
	Doc     string  `json:"doc,omitempty"`
	Noise   float64 `json:"noise"` // probability that a behavioural draw is episode-own rather than world-shared
	// TemplateSD is the SD, on the logit scale, of a task template's
	// difficulty shared by every model, condition and arm (0 = none; see
	// Params.Harden).
	TemplateSD float64          `json:"template_sd,omitempty"`
	Mechanisms Mechanisms       `json:"mechanisms"`
	Time       Timing           `json:"time"`
	Report     shiftless        `json:"report"`
	CuePlain   shift            `json:"cue_plain"`
	Conditions map[string]shift `json:"conditions"`
	// Care maps a condition to how much its prompt raises every model's
	// careful propensities (v_to, v_500, w, s) on the logit scale
	// (Params.Care). One number per condition, the same for every model.
	Care      map[string]float64 `json:"care,omitempty"`
	Harnesses map[string]shift   `json:"harnesses"`
	Models    []Model            `json:"models"`
}

// shiftless is the report block: the pooled reporting propensities (o and o_strict)
// of docs/simulation.md, Agents, item 5, the default for every model.
type shiftless struct {
	Completed float64 `json:"completed"` // report "completed" after recovering from an ambiguous fault
	Silent    float64 `json:"silent"`    // list no uncertainty when reporting completed
}

// DefaultProfiles returns the embedded profiles of the paper's nine models.
func DefaultProfiles() *Profiles {
	p, err := DecodeProfiles(bytes.NewReader(profilesJSON), "profiles.json")
	if err != nil {
		panic("agent: embedded profiles.json: " + err.Error())
	}
	return p
}

// LoadProfiles reads a profile file.
func LoadProfiles(path string) (*Profiles, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeProfiles(f, path)
}

// DecodeProfiles parses and validates a profile file; errors name the file,
// the line of a syntax error, and the model and field of a bad value.
func DecodeProfiles(r io.Reader, name string) (*Profiles, error) {
	data, err := readlimit.Read(r, name, "agent profiles", readlimit.Manifest)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profiles
	if err := dec.Decode(&p); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("%s: line %d: %v", name, line, err)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.deriveV500(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &p, nil
}

// deriveV500 sets v_500 of every model that omits it from its v_to and the
// global contrast mechanisms.misleading_500 (Mechanisms.Misleading500). A
// model may still give v_500 itself (profile files written before the
// mechanism), but not beside a non-zero contrast: that would be two
// answers to one question.
func (p *Profiles) deriveV500(data []byte) error {
	var raw struct {
		Models []map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(data, &raw); err != nil || len(raw.Models) != len(p.Models) {
		return fmt.Errorf("models: cannot re-read for v_500: %v", err)
	}
	d := p.Mechanisms.Misleading500
	for i := range p.Models {
		m := &p.Models[i]
		if _, given := raw.Models[i]["v_500"]; given {
			if d != 0 {
				return fmt.Errorf("models[%d] (%s).v_500: given, but mechanisms.misleading_500 = %v derives it from v_to; remove one", i, m.Name, d)
			}
			continue
		}
		m.V500 = shiftLogit(m.VTo, -d)
	}
	return nil
}

func prob(where string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("%s: probability must be in [0,1], got %v", where, v)
	}
	return nil
}

func checkShift(where string, s shift) error {
	var p Params
	for k, v := range s {
		if _, ok := p.field(k); !ok {
			return fmt.Errorf("%s: unknown parameter %q", where, k)
		}
		if !(v >= -1 && v <= 1) {
			return fmt.Errorf("%s.%s: shift must be in [-1,1], got %v", where, k, v)
		}
	}
	return nil
}

func (p *Profiles) validate() error {
	if err := prob("noise", p.Noise); err != nil {
		return err
	}
	if err := prob("mechanisms.eventual_trust", p.Mechanisms.EventualTrust); err != nil {
		return err
	}
	if d := p.Mechanisms.Misleading500; !(d >= 0 && d <= 20) {
		return fmt.Errorf("mechanisms.misleading_500: logit contrast must be in [0, 20], got %v", d)
	}
	if e := p.Mechanisms.TimeoutWait; !(e >= 0 && e <= 20) {
		return fmt.Errorf("mechanisms.timeout_wait: must be in [0, 20] logits, got %v", e)
	}
	if h := p.Mechanisms.VerifyHalfLifeS; !(h >= 0 && h <= 1e6) {
		return fmt.Errorf("mechanisms.verify_halflife_s: must be in [0, 1e6] seconds, got %v", h)
	}
	if !(p.TemplateSD >= 0 && p.TemplateSD <= 5) {
		return fmt.Errorf("template_sd: must be in [0,5], got %v", p.TemplateSD)
	}
	t := p.Time
	if !(t.ThinkMinS >= 0 && t.ThinkMaxS >= t.ThinkMinS && t.JitterMeanS >= 0 &&
		t.PatienceMinS >= 0 && t.PatienceMaxS >= t.PatienceMinS && t.InProgressWaitS > 0 &&
		t.OraclePollS > 0 && t.MaxPolls > 0) {
		return fmt.Errorf("time: need 0 ≤ min ≤ max for think and patience, jitter ≥ 0, waits > 0, max_polls > 0; got %+v", t)
	}
	if err := prob("report.completed", p.Report.Completed); err != nil {
		return err
	}
	if err := prob("report.silent", p.Report.Silent); err != nil {
		return err
	}
	if err := checkShift("cue_plain", p.CuePlain); err != nil {
		return err
	}
	for c, s := range p.Conditions {
		if err := checkShift("conditions."+c, s); err != nil {
			return err
		}
	}
	for c, d := range p.Care {
		if !(d >= -10 && d <= 10) {
			return fmt.Errorf("care.%s: logit shift must be in [-10,10], got %v", c, d)
		}
	}
	for h, s := range p.Harnesses {
		if err := checkShift("harnesses."+h, s); err != nil {
			return err
		}
	}
	if len(p.Models) == 0 {
		return fmt.Errorf("models: empty")
	}
	seen := map[string]bool{}
	for i, m := range p.Models {
		where := fmt.Sprintf("models[%d]", i)
		if m.Name == "" {
			return fmt.Errorf("%s.name: empty", where)
		}
		if seen[m.Name] {
			return fmt.Errorf("%s.name: duplicate model %q", where, m.Name)
		}
		seen[m.Name] = true
		for _, f := range []string{"v_to", "v_500", "w", "s", "pi", "g", "k_nat", "k_ke", "r", "a", "oracle", "eps", "abandon"} {
			v, _ := m.Params.field(f)
			if err := prob(where+" ("+m.Name+")."+f, *v); err != nil {
				return err
			}
		}
		for c, s := range m.Conditions {
			if err := checkShift(where+" ("+m.Name+").conditions."+c, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// Model returns the named model's profile.
func (p *Profiles) Model(name string) (*Model, bool) {
	for i := range p.Models {
		if p.Models[i].Name == name {
			return &p.Models[i], true
		}
	}
	return nil, false
}

// Effective returns a model's propensities in a cell: the base values plus
// the harness perturbation, the condition shifts (global, then the model's
// own), the condition's care (a logit shift of the careful propensities)
// and the plain-cue effect, each clamped to [0,1].
func (p *Profiles) Effective(model, harness, condition, cue string) (Params, error) {
	m, ok := p.Model(model)
	if !ok {
		return Params{}, fmt.Errorf("no profile for model %q", model)
	}
	e := m.Params
	e.Mech = p.Mechanisms
	if m.Compl == 0 && m.Quiet == 0 {
		e.Compl, e.Quiet = p.Report.Completed, p.Report.Silent
	}
	if s, ok := p.Harnesses[harness]; ok {
		e.apply(s)
	} else if harness != "" && harness != "minimal" {
		return Params{}, fmt.Errorf("no harness %q in profiles (have %v)", harness, keys(p.Harnesses))
	}
	e.apply(p.Conditions[condition])
	e.apply(m.Conditions[condition])
	e = e.Care(p.Care[condition])
	if cue == "plain" {
		e.apply(p.CuePlain)
	}
	return e, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
