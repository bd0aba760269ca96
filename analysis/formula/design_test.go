package formula

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// designRows is a small table: contract (string), fault_mode (string),
// delay_s (float), instance (int), difficulty (extra, numeric text),
// tier (extra, text), eos (bool outcome).
func designRows() []mapRow {
	mk := func(contract, fault string, delay float64, inst int64, diff, tier string, eos bool) mapRow {
		return mapRow{"contract": str(contract), "fault_mode": str(fault), "delay_s": num(delay),
			"instance": integer(inst), "difficulty": str(diff), "tier": str(tier), "eos": boolean(eos)}
	}
	return []mapRow{
		mk("native", "timeout_post", 0, 1, "1", "b", false),
		mk("native", "timeout_late", 90, 2, "2", "a", false),
		mk("keys-everywhere", "timeout_post", 0, 10, "1", "a", true),
		mk("keys-everywhere", "none", 0, 2, "3", "c", true),
		mk("native", "none", 0, 1, "2", "b", true),
		mk("native", "timeout_post", 0, 1, "1", "b", false),
	}
}

func buildFrame(t *testing.T, f *Formula, rows []mapRow, collapse bool) *frame.Frame {
	t.Helper()
	var cols []string
	cols = append(cols, f.CovariateColumns()...)
	b := frame.NewBuilder(frame.Spec{Columns: cols, Outcome: f.Response, Collapse: collapse})
	for _, r := range rows {
		if err := b.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return b.Frame()
}

func TestBuild(t *testing.T) {
	tests := []struct {
		formula string
		ref     map[string]string
		names   []string
		x       []float64 // row-major over the uncollapsed rows
		warn    string
	}{
		{
			// Sorted levels: keys-everywhere < native; none < timeout_late < timeout_post.
			formula: "eos ~ contract + fault_mode",
			names:   []string{"(Intercept)", "contract[native]", "fault_mode[timeout_late]", "fault_mode[timeout_post]"},
			x: []float64{
				1, 1, 0, 1,
				1, 1, 1, 0,
				1, 0, 0, 1,
				1, 0, 0, 0,
				1, 1, 0, 0,
				1, 1, 0, 1,
			},
		},
		{
			formula: "eos ~ contract + delay_s",
			ref:     map[string]string{"contract": "native"},
			names:   []string{"(Intercept)", "contract[keys-everywhere]", "delay_s"},
			x:       []float64{1, 0, 0, 1, 0, 90, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0},
		},
		{
			// instance is an int: numeric unless C(); C(instance) sorts numerically (2 < 10).
			formula: "eos ~ C(instance) + difficulty",
			names:   []string{"(Intercept)", "instance[2]", "instance[10]", "difficulty"},
			x:       []float64{1, 0, 0, 1, 1, 1, 0, 2, 1, 0, 1, 1, 1, 1, 0, 3, 1, 0, 0, 2, 1, 0, 0, 1},
		},
		{
			formula: "eos ~ 0 + tier",
			names:   []string{"tier[a]", "tier[b]", "tier[c]"},
			x:       []float64{0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0},
		},
		{
			// A factor-by-number interaction: R's contract[native]:delay_s.
			formula: "eos ~ contract*delay_s",
			names:   []string{"(Intercept)", "contract[native]", "delay_s", "contract[native]:delay_s"},
			x:       []float64{1, 1, 0, 0, 1, 1, 90, 90, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0},
		},
		{
			// No margins: both factors by all their levels, the first
			// varying fastest; combinations no row has are left out.
			formula: "eos ~ 0 + contract:tier",
			names:   []string{"contract[keys-everywhere]:tier[a]", "contract[native]:tier[a]", "contract[native]:tier[b]", "contract[keys-everywhere]:tier[c]"},
			x:       []float64{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0},
			warn:    "contract[keys-everywhere]:tier[b] is zero in every row",
		},
	}
	for _, tt := range tests {
		f, err := Parse(tt.formula)
		if err != nil {
			t.Fatal(err)
		}
		fr := buildFrame(t, f, designRows(), false)
		d, err := Build(f, fr, Options{Ref: tt.ref})
		if err != nil {
			t.Errorf("%s: %v", tt.formula, err)
			continue
		}
		if !reflect.DeepEqual(d.Names, tt.names) {
			t.Errorf("%s: names %v, want %v", tt.formula, d.Names, tt.names)
		}
		if tt.warn != "" && !strings.Contains(strings.Join(d.Warnings, "\n"), tt.warn) {
			t.Errorf("%s: warnings %q lack %q", tt.formula, d.Warnings, tt.warn)
		}
		want := mat.NewDense(len(tt.x)/len(tt.names), len(tt.names), tt.x)
		if !mat.Equal(d.X, want) {
			t.Errorf("%s: X =\n%v\nwant\n%v", tt.formula, mat.Formatted(d.X), mat.Formatted(want))
		}
	}
}

func TestBuildWarningsAndErrors(t *testing.T) {
	rows := designRows()
	only := rows[:2] // contract has one level (native) here
	f, _ := Parse("eos ~ contract + fault_mode")
	d, err := Build(f, buildFrame(t, f, only, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "single level (native)") {
		t.Errorf("warnings = %q, want one about contract's single level", d.Warnings)
	}
	if len(d.Terms[0].Cols) != 0 || !reflect.DeepEqual(d.Names, []string{"(Intercept)", "fault_mode[timeout_post]"}) {
		t.Errorf("names = %v", d.Names)
	}

	_, err = Build(f, buildFrame(t, f, rows, false), Options{Ref: map[string]string{"contract": "nope"}})
	if err == nil || !strings.Contains(err.Error(), "levels are keys-everywhere, native") {
		t.Errorf("bad --ref level: err = %v", err)
	}
	_, err = Build(f, buildFrame(t, f, rows, false), Options{Ref: map[string]string{"model": "x"}})
	if err == nil || !strings.Contains(err.Error(), "not a term") {
		t.Errorf("--ref on a non-term: err = %v", err)
	}
	g, _ := Parse("eos ~ tier + (1|contract)")
	if _, err := Groups(g, buildFrame(t, g, only, false)); err == nil || !strings.Contains(err.Error(), "1 level") {
		t.Errorf("single-level group: err = %v", err)
	}
}

func TestCollapse(t *testing.T) {
	f, _ := Parse("eos ~ contract + fault_mode")
	fr := buildFrame(t, f, designRows(), true)
	// Rows 0 and 5 are the same pattern (native, timeout_post): 6 rows, 5 patterns.
	if fr.Len() != 5 || fr.Rows != 6 {
		t.Fatalf("patterns = %d, rows = %d, want 5, 6", fr.Len(), fr.Rows)
	}
	if tot := fr.Total(); tot.N != 6 || tot.Events != 3 {
		t.Errorf("total = %+v, want N 6, events 3", tot)
	}
	if fr.Cells[0].N != 2 || fr.Cells[0].Events != 0 {
		t.Errorf("first pattern = %+v, want N 2, events 0", fr.Cells[0])
	}
	d, err := Build(f, fr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := d.X.Dims(); r != 5 || c != 4 {
		t.Errorf("X is %d×%d, want 5×4", r, c)
	}
	// contract[keys-everywhere] all 1 and fault_mode[none] all 1: both flagged.
	sep := Separated(d, fr)
	want := []string{"contract[keys-everywhere] (all 1)", "fault_mode[none] (all 1)", "fault_mode[timeout_late] (all 0)"}
	if !reflect.DeepEqual(sep, want) {
		t.Errorf("Separated = %q, want %q", sep, want)
	}
}

func TestSelect(t *testing.T) {
	f, _ := Parse("eos ~ contract + fault_mode + delay_s")
	d, err := Build(f, buildFrame(t, f, designRows(), false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, names := d.Select([]int{2, 0})
	if want := []string{"(Intercept)", "delay_s", "contract[native]"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if x.At(1, 1) != 90 || x.At(1, 2) != 1 {
		t.Errorf("row 1 = %v", mat.Row(nil, 1, x))
	}
}

func TestUnknownColumn(t *testing.T) {
	b := frame.NewBuilder(frame.Spec{Columns: []string{"condtion"}, Outcome: "eos"})
	err := b.Add(&ledger.Episode{EpisodeID: "e1", Extra: map[string]string{"condition_group": "x"}})
	if err == nil || !strings.Contains(err.Error(), `unknown column "condtion" (did you mean condition`) {
		t.Errorf("err = %v", err)
	}
}

// TestRefOnNumericText checks --ref on a column of numeric text (a user's
// extra CSV column, difficulty here): when the column enters the formula
// as a number, a reference level is an error saying so (it used to be
// ignored, fitting a model other than the one asked for); as a factor,
// a level that is only the same number as one of its levels ("03" for 3)
// is not one, and the error suggests the level.
func TestRefOnNumericText(t *testing.T) {
	rows := designRows()
	for _, tc := range []struct {
		formula, ref, want string
	}{
		{"eos ~ difficulty", "03", "Refs difficulty=03: difficulty enters the formula as a number (its values are all numbers: 1, 2, 3), so it has no reference level; write C(difficulty) in the formula to make it a factor"},
		{"eos ~ difficulty + tier", "2", "Refs difficulty=2: difficulty enters the formula as a number"},
		{"eos ~ instance", "2", "Refs instance=2: instance enters the formula as a number (its values are all numbers: 1, 2, 10)"},
		{"eos ~ C(difficulty)", "03", "Refs difficulty=03: no such level; levels are 1, 2, 3 (did you mean 3?)"},
		{"eos ~ C(difficulty)", "07", "Refs difficulty=07: no such level; levels are 1, 2, 3"},
		{"eos ~ C(difficulty)", "2", ""},
	} {
		f, err := Parse(tc.formula)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Build(f, buildFrame(t, f, rows, false), Options{Ref: map[string]string{f.Terms[0].Factors[0].Column: tc.ref}})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s, ref %s: %v", tc.formula, tc.ref, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || tc.ref == "07" && strings.Contains(err.Error(), "did you mean")):
			t.Errorf("%s, ref %s: %v\nwant %s…", tc.formula, tc.ref, err, tc.want)
		}
	}
}

func TestRandomDesignAndGroups(t *testing.T) {
	rows := designRows()
	f, err := Parse("eos ~ delay_s + (1 + delay_s | contract) + (0 + tier || contract) + (1 | contract/tier)")
	if err != nil {
		t.Fatal(err)
	}
	fr := buildFrame(t, f, rows, false)
	d, err := RandomDesign(f.Random[0], fr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"(Intercept)", "delay_s"}; !reflect.DeepEqual(d.Names, want) {
		t.Errorf("slope names %v, want %v", d.Names, want)
	}
	// Without a random intercept a factor slope keeps all its levels.
	d, err = RandomDesign(f.Random[1], fr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tier[a]", "tier[b]", "tier[c]"}; !reflect.DeepEqual(d.Names, want) {
		t.Errorf("slope names %v, want %v", d.Names, want)
	}
	gs, err := Groups(f, fr)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 4 || gs[3].Name != "contract:tier" {
		t.Fatalf("groups %+v", gs)
	}
	// contract:tier combinations in code order: k-e:a, k-e:c, native:a, native:b.
	if want := []string{"keys-everywhere:a", "keys-everywhere:c", "native:a", "native:b"}; !reflect.DeepEqual(gs[3].Levels, want) {
		t.Errorf("levels %v, want %v", gs[3].Levels, want)
	}
	if want := []int{3, 2, 0, 1, 3, 3}; !reflect.DeepEqual(gs[3].Index, want) {
		t.Errorf("index %v, want %v", gs[3].Index, want)
	}
	// A slope with one value in the data, and a one-level group, are errors
	// naming the term.
	only := rows[:1]
	f2, _ := Parse("eos ~ (0 + contract | tier) + (1 | fault_mode)")
	fr2 := buildFrame(t, f2, only, false)
	if _, err := RandomDesign(f2.Random[0], fr2, Options{}); err == nil || !strings.Contains(err.Error(), "random term (0 + contract | tier): the slope contract has a single value") {
		t.Errorf("one-level slope: %v", err)
	}
	if _, err := Group(f2.Random[1], fr2); err == nil || !strings.Contains(err.Error(), "random term (1|fault_mode): fault_mode has 1 level(s)") {
		t.Errorf("one-level group: %v", err)
	}
}

// FuzzBuild builds the designs of any formula over designRows' columns:
// Build, Groups, RandomDesign, Offset and Trials return errors, never
// panic, whatever the terms.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{"eos ~ contract*fault_mode", "eos ~ (contract + tier + delay_s)^2 - contract:tier",
		"eos ~ 0 + contract:C(instance) + offset(log(delay_s))", "cbind(difficulty, instance - difficulty) ~ tier/contract",
		"eos ~ delay_s + (delay_s | contract) + (0 + tier || fault_mode) + (1 | contract/tier)", "eos ~ C(difficulty):delay_s"} {
		f.Add(s)
	}
	known := map[string]bool{"contract": true, "fault_mode": true, "delay_s": true, "instance": true, "difficulty": true, "tier": true, "eos": true}
	f.Fuzz(func(t *testing.T, s string) {
		fm, err := Parse(s)
		if err != nil {
			return
		}
		for _, c := range fm.Columns() {
			if !known[c] {
				return
			}
		}
		cols := fm.CovariateColumns()
		spec := frame.Spec{Outcome: fm.Response}
		if fm.Cbind != nil {
			spec.Outcome = ""
			for _, c := range fm.ResponseColumns() {
				if !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
		spec.Columns = cols
		b := frame.NewBuilder(spec)
		for _, r := range designRows() {
			if err := b.Add(r); err != nil {
				return
			}
		}
		fr := b.Frame()
		if _, err := Build(fm, fr, Options{}); err != nil {
			return
		}
		for _, r := range fm.Random {
			_, _ = Group(r, fr)
			_, _ = RandomDesign(r, fr, Options{})
		}
		_, _ = Offset(fm, fr)
		if fm.Cbind != nil {
			_, _, _ = Trials(fm, fr)
		}
	})
}
