package sandbox

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The task suite (docs/simulation.md, Task suite) is data: which tool each required
// write uses, and so whether it is protected, follows from this file and
// the catalogue's mechanics, never from constants in code.
//
//go:embed data/tasks.json
var defaultTaskData []byte

type taskFile struct {
	Version   int            `json:"version"`
	Templates []templateData `json:"templates"`
}

type templateData struct {
	ID          string    `json:"id"`
	Service     string    `json:"service"`
	Instances   int       `json:"instances"`
	Instruction string    `json:"instruction"`
	Vars        []varData `json:"vars"`
	Setup       struct {
		Charges []map[string]any `json:"charges"`
		Tickets []map[string]any `json:"tickets"`
	} `json:"setup"`
	Steps []struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	} `json:"steps"`
	Handoffs *handoffData `json:"handoffs"`
	// Below names the step arguments an instruction that says "given
	// below" refers to; each step's values are listed as Task.Details.
	Below []string `json:"below"`
	// Suite names a suite of templates beyond the paper's ("" for the
	// paper's twelve): Templates lists the paper's only, so that a design
	// selecting every template keeps the paper's tasks; a design names
	// the others (TemplatesOf).
	Suite string `json:"suite"`
}

// handoffData makes a template's later instances hand results on: from
// instance FromInstance, step Pairs[i][1] quotes the receipt that step
// Pairs[i][0]'s write returned (a deploy stage promoting the previous
// stage's run, a notice quoting the release receipt). The receipt is in the
// write's response only, as a one-time token or signed URL is: a read-back
// shows the effect but not its receipt. Note is appended to the
// instruction of those instances. Instance 0 never has hand-offs, so the
// experiments that use only instance 0 (E2, E5, E6) are unchanged.
type handoffData struct {
	FromInstance int      `json:"from_instance"`
	Pairs        [][2]int `json:"pairs"`
	Note         string   `json:"note"`
}

type varData struct {
	Name   string `json:"name"`
	Values []any  `json:"values"`
}

// Setup is the state a task's world starts from (charges to refund,
// tickets to comment on); it is not part of the effects ledger.
type Setup struct {
	Charges []map[string]any
	Tickets []map[string]any
}

var (
	dataMu    sync.RWMutex
	templates map[string]*templateData
	tmplOrder []string // every template, in file order
	taskCache sync.Map // "T01#0" -> *Task (tasks are immutable once built)
)

// SuiteRepeats is the suite of templates with legitimate identical
// repeats (two identical installments, the same reminder for two
// sessions), where a guard that takes a repeat for a duplicate suppresses
// work (docs/simulation.md, Task suite).
const SuiteRepeats = "repeats"

func init() {
	if err := loadTaskData(defaultTaskData); err != nil {
		panic("sandbox: embedded data/tasks.json: " + err.Error())
	}
}

// UseTaskData replaces the task suite with the JSON in js (same format as
// the embedded data/tasks.json) until restore is called. It is a hook for
// tests that change the data to check that mechanics follow from it; it is
// not safe to use while episodes run concurrently.
func UseTaskData(js []byte) (restore func(), err error) {
	dataMu.RLock()
	oldT, oldO := templates, tmplOrder
	dataMu.RUnlock()
	if err := loadTaskData(js); err != nil {
		return nil, err
	}
	return func() {
		dataMu.Lock()
		templates, tmplOrder = oldT, oldO
		dataMu.Unlock()
		taskCache.Clear()
	}, nil
}

// DefaultTaskData returns a copy of the embedded task data file.
func DefaultTaskData() []byte { return append([]byte(nil), defaultTaskData...) }

func loadTaskData(js []byte) error {
	var f taskFile
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("tasks data: %w", err)
	}
	m := make(map[string]*templateData, len(f.Templates))
	order := make([]string, 0, len(f.Templates))
	for i := range f.Templates {
		t := &f.Templates[i]
		where := fmt.Sprintf("tasks data: templates[%d]", i)
		if t.ID == "" {
			return fmt.Errorf("%s: field id: empty", where)
		}
		if _, dup := m[t.ID]; dup {
			return fmt.Errorf("%s: field id: duplicate %q", where, t.ID)
		}
		if t.Instances < 1 {
			return fmt.Errorf("%s (%s): field instances: must be ≥ 1", where, t.ID)
		}
		if len(t.Steps) == 0 {
			return fmt.Errorf("%s (%s): field steps: empty", where, t.ID)
		}
		for _, v := range t.Vars {
			if v.Name == "" || len(v.Values) == 0 {
				return fmt.Errorf("%s (%s): field vars: a variable needs a name and values", where, t.ID)
			}
			for j := range v.Values {
				v.Values[j] = fromJSONNumber(v.Values[j])
			}
		}
		for j := range t.Steps {
			t.Steps[j].Args = fromJSONNumber(t.Steps[j].Args).(map[string]any)
			ti, ok := toolIndex[t.Steps[j].Tool]
			if !ok || !defs[ti].write {
				return fmt.Errorf("%s (%s): steps[%d]: field tool: %q is not a write tool", where, t.ID, j, t.Steps[j].Tool)
			}
		}
		if says := strings.Contains(t.Instruction, "given below"); says != (len(t.Below) > 0) {
			if says {
				return fmt.Errorf("%s (%s): field below: the instruction says \"given below\" but no step arguments are named to list", where, t.ID)
			}
			return fmt.Errorf("%s (%s): field below: the instruction does not say \"given below\", so nothing would introduce the listed arguments", where, t.ID)
		}
		for _, name := range t.Below {
			for j := range t.Steps {
				if _, ok := t.Steps[j].Args[name]; !ok {
					return fmt.Errorf("%s (%s): field below: steps[%d] has no argument %q", where, t.ID, j, name)
				}
			}
		}
		if h := t.Handoffs; h != nil {
			if h.FromInstance < 1 {
				return fmt.Errorf("%s (%s): field handoffs.from_instance: must be ≥ 1 (instance 0 keeps the paper's structure)", where, t.ID)
			}
			if len(h.Pairs) == 0 || h.Note == "" {
				return fmt.Errorf("%s (%s): field handoffs: needs pairs and a note for the instruction", where, t.ID)
			}
			quotes := map[int]bool{}
			for j, pr := range h.Pairs {
				if pr[0] < 0 || pr[0] >= pr[1] || pr[1] >= len(t.Steps) {
					return fmt.Errorf("%s (%s): field handoffs.pairs[%d]: want [from, to] with 0 ≤ from < to < %d steps, got %v", where, t.ID, j, len(t.Steps), pr)
				}
				// A write quotes one receipt (one receipt argument).
				if quotes[pr[1]] {
					return fmt.Errorf("%s (%s): field handoffs.pairs[%d]: step %d already quotes a receipt; a step can quote only one", where, t.ID, j, pr[1])
				}
				quotes[pr[1]] = true
			}
		}
		for j := range t.Setup.Charges {
			t.Setup.Charges[j] = fromJSONNumber(t.Setup.Charges[j]).(map[string]any)
		}
		for j := range t.Setup.Tickets {
			t.Setup.Tickets[j] = fromJSONNumber(t.Setup.Tickets[j]).(map[string]any)
		}
		m[t.ID] = t
		order = append(order, t.ID)
		// Every instance must yield valid arguments: catch data errors here.
		for inst := 0; inst < t.Instances; inst++ {
			task := buildTask(t, inst)
			for j, s := range task.Steps {
				d := &defs[toolIndex[s.Tool]]
				if msg := validate(d, s.Args); msg != "" {
					return fmt.Errorf("%s (%s) instance %d: steps[%d]: %s", where, t.ID, inst, j, msg)
				}
			}
			if err := checkActions(task); err != nil {
				return fmt.Errorf("%s (%s) instance %d: %w", where, t.ID, inst, err)
			}
		}
	}
	dataMu.Lock()
	templates, tmplOrder = m, order
	dataMu.Unlock()
	taskCache.Clear()
	return nil
}

// checkActions refuses a task whose steps the grader could confuse: two
// steps of one logical action must be a legitimate identical repeat (the
// same arguments), and two steps of one target whose texts differ must
// differ by more than a rewording (Similarity below SimilarText), or a
// re-synthesised write of one would count as the other.
func checkActions(t *Task) error {
	for i := range t.Steps {
		for j := i + 1; j < len(t.Steps); j++ {
			a, b := &t.Steps[i], &t.Steps[j]
			if a.tool != b.tool {
				continue
			}
			if len(a.ids) > 0 && slices.Equal(a.ids, b.ids) {
				if canonString(a.Args) != canonString(b.Args) {
					return fmt.Errorf("steps[%d] and steps[%d] are one logical action with other arguments; a repeat the task wants must repeat them exactly", i, j)
				}
				continue
			}
			ta, xa, fa := fuzzyText(a.tool, a.Args)
			tb, xb, _ := fuzzyText(b.tool, b.Args)
			if fa && ta == tb {
				if sim := Similarity(xa, xb); sim >= SimilarText {
					return fmt.Errorf("steps[%d] and steps[%d]: texts of one target %.2f similar (the grader takes ≥ %.2f for a rewording of one action)", i, j, sim, SimilarText)
				}
			}
		}
	}
	return nil
}

// fromJSONNumber turns json.Number into float64 throughout v, as a plain
// json.Unmarshal would, after UseNumber kept integers exact.
func fromJSONNumber(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = fromJSONNumber(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = fromJSONNumber(e)
		}
		return x
	}
	return v
}

// Templates returns the template ids of the paper's suite ("T01".."T12"),
// in file order: the templates a design that names none selects.
func Templates() []string { return TemplatesOf("") }

// TemplatesOf returns the template ids of a suite ("" for the paper's,
// SuiteRepeats), in file order.
func TemplatesOf(suite string) []string {
	dataMu.RLock()
	defer dataMu.RUnlock()
	var out []string
	for _, id := range tmplOrder {
		if templates[id].Suite == suite {
			out = append(out, id)
		}
	}
	return out
}

// Instances returns how many instances a template has (0 if unknown).
func Instances(template string) int {
	dataMu.RLock()
	defer dataMu.RUnlock()
	if t, ok := templates[template]; ok {
		return t.Instances
	}
	return 0
}

// NewTask builds instance of template deterministically: variable j takes
// value instance mod |values_j|, so instance 0 uses every variable's first
// value, every variable changes from one instance to the next, and
// instances stay distinct up to the lcm of the pool sizes. The returned
// task is shared: do not modify it.
func NewTask(template string, instance int) (*Task, error) {
	key := template + "#" + strconv.Itoa(instance)
	if t, ok := taskCache.Load(key); ok {
		return t.(*Task), nil
	}
	dataMu.RLock()
	td, ok := templates[template]
	dataMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("sandbox: unknown template %q", template)
	}
	if instance < 0 || instance >= td.Instances {
		return nil, fmt.Errorf("sandbox: template %s has instances 0–%d, not %d", template, td.Instances-1, instance)
	}
	t := buildTask(td, instance)
	taskCache.Store(key, t)
	return t, nil
}

func buildTask(td *templateData, instance int) *Task {
	vals := make(map[string]any, len(td.Vars))
	for _, v := range td.Vars {
		vals[v.Name] = v.Values[instance%len(v.Values)]
	}
	t := &Task{
		Template:    td.ID,
		Instance:    instance,
		ID:          td.ID + "#" + strconv.Itoa(instance),
		Service:     td.Service,
		Instruction: subst(td.Instruction, vals).(string),
	}
	for _, c := range td.Setup.Charges {
		t.Setup.Charges = append(t.Setup.Charges, subst(c, vals).(map[string]any))
	}
	for _, c := range td.Setup.Tickets {
		t.Setup.Tickets = append(t.Setup.Tickets, subst(c, vals).(map[string]any))
	}
	for i, s := range td.Steps {
		d := &defs[toolIndex[s.Tool]]
		args := subst(s.Args, vals).(map[string]any)
		platform, _ := args["platform"].(string)
		t.Steps = append(t.Steps, Step{
			Index:      i,
			Tool:       s.Tool,
			Args:       args,
			Class:      d.class(ledger.ContractNative, platform),
			ReadPath:   d.readPath(platform),
			Reversible: d.reversible,
			Platform:   platform,
			tool:       d.id,
			ids:        identities(d.id, args),
		})
		t.argBytes += len(appendCanon(nil, args, ""))
	}
	for _, s := range t.Steps {
		t.Details = append(t.Details, details(s.Args, td.Below)...)
	}
	if h := td.Handoffs; h != nil && instance >= h.FromInstance {
		t.Instruction += " " + h.Note
		t.handoffs = true
		for _, pr := range h.Pairs {
			t.Steps[pr[0]].Receipt = true
			t.Steps[pr[1]].Needs = append(t.Steps[pr[1]].Needs, pr[0])
		}
	}
	return t
}

// details lists one step's named arguments as an agent would be shown
// them: strings as they are, joined by ": " (mastodon: the post's text); a
// list argument gives one line per element, each element as compact JSON
// (a row to import).
func details(args map[string]any, names []string) []string {
	var parts []string
	var lines []string
	for _, name := range names {
		switch v := args[name].(type) {
		case string:
			parts = append(parts, v)
		case []any:
			for _, el := range v {
				lines = append(lines, compactJSON(el))
			}
		default:
			parts = append(parts, compactJSON(v))
		}
	}
	if len(parts) > 0 {
		lines = append([]string{strings.Join(parts, ": ")}, lines...)
	}
	return lines
}

// compactJSON encodes a value decoded from the task data; such values
// always encode, and fmt's form stands in should one not.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// subst replaces {name} placeholders in strings of v with the instance's
// values. A string that is exactly one placeholder takes the value's own
// type (so amounts stay numbers).
func subst(v any, vals map[string]any) any {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "{") {
			return x
		}
		if strings.HasPrefix(x, "{") && strings.HasSuffix(x, "}") && strings.Count(x, "{") == 1 {
			if val, ok := vals[x[1:len(x)-1]]; ok {
				return val
			}
		}
		for name, val := range vals {
			x = strings.ReplaceAll(x, "{"+name+"}", scalarString(val))
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = subst(e, vals)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = subst(e, vals)
		}
		return out
	}
	return v
}

// ClassUnder returns the step's write class under the contract (paper-
// design §5.2): under keys-everywhere every write that is not naturally
// idempotent is keyed.
func (s Step) ClassUnder(contract string) string {
	i, ok := toolIndex[s.Tool]
	if !ok {
		return s.Class
	}
	return defs[i].class(contract, s.Platform)
}

// Protected reports whether a redelivered or re-issued copy of the step's
// write leaves one effect when the client attaches a key wherever the
// contract honours one (keyed or naturally idempotent).
func (s Step) Protected(contract string) bool {
	c := s.ClassUnder(contract)
	return c == ledger.ClassKeyed || c == ledger.ClassIdempotent
}
