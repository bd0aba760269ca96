package paper

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// ep is a faulted episode of the given design for constructed tests.
func ep(exp, model, cond, tmpl, mode string) *ledger.Episode {
	return &ledger.Episode{Experiment: exp, Model: model, Harness: "minimal", Contract: ledger.ContractNative,
		Condition: cond, Cue: ledger.CueDefault, Template: tmpl, Task: tmpl + "#0", FaultMode: mode,
		FaultFired: mode != ledger.FaultNone, Weight: 1, WriteClass: ledger.ClassStrong}
}

// Table 13 on constructed pairs: b = 10 guard-only successes, c = 2
// other-only, 8 concordant; by hand the gain is (10 − 2)/20 = +40 pp and the
// exact McNemar p = 2·P(X ≤ 2 | 12, ½) = 2·(1 + 12 + 66)/4096 = 0.03857;
// Holm over the one testable comparison leaves it unchanged.
func TestTable13HandCheck(t *testing.T) {
	d := &table.Data{}
	for i := range 20 {
		g := ep("E2", "m", "guard", "T01", ledger.FaultTimeoutPost)
		v := ep("E2", "m", "vanilla", "T01", ledger.FaultTimeoutPost)
		g.PairKey, v.PairKey = fmt.Sprint(i), fmt.Sprint(i)
		switch {
		case i < 10:
			g.EOS = true
		case i < 12:
			v.EOS = true
		case i < 16:
			g.EOS, v.EOS = true, true
		}
		d.Append(g, v)
	}
	tb, err := Table13(d)
	if err != nil {
		t.Fatal(err)
	}
	gain, _ := tb.Cell("vanilla", "gain")
	p, _ := tb.Cell("vanilla", "p")
	holm, _ := tb.Cell("vanilla", "p_holm")
	pairs, _ := tb.Cell("vanilla", "pairs")
	if !near(gain.Value, 40, 1e-12) || !near(p.Value, 2*79.0/4096, 1e-12) || holm.Value != p.Value || pairs.Value != 20 {
		t.Errorf("gain %v p %v holm %v pairs %v", gain.Value, p.Value, holm.Value, pairs.Value)
	}
	if aw, _ := tb.Cell("aware", "p_holm"); !math.IsNaN(aw.Value) {
		t.Errorf("aware without pairs: p %v, want NaN", aw.Value)
	}
	if len(tb.Warnings) == 0 {
		t.Error("no warning for comparisons without pairs")
	}
}

// Table 3 on one template: the ICC is not estimable, so the interval is the
// plain Wilson interval on n = 10 with 3 events, [0.1078, 0.6032]
// (statsmodels proportion_confint(3, 10, method="wilson")), and a warning
// says so.
func TestTable3HandCheck(t *testing.T) {
	d := &table.Data{}
	for i := range 10 {
		e := ep("E1", "m", "vanilla", "T01", ledger.FaultTimeoutLate)
		e.Duplicated = i < 3
		d.Append(e)
	}
	tb, err := Table3With(d, ICCPerColumn)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := tb.Cell("m", "dup_late")
	if !near(c.Value, 30, 1e-12) || !near(c.Lo, 10.78, 0.01) || !near(c.Hi, 60.32, 0.01) || c.N != 10 {
		t.Errorf("late = %v [%v, %v] n %d", c.Value, c.Lo, c.Hi, c.N)
	}
	if !strings.Contains(strings.Join(tb.Warnings, "\n"), "ICC undefined for template (10 rows, 1 clusters") {
		t.Errorf("warnings %q", tb.Warnings)
	}
	if r, _ := tb.Cell("m", "dup_redelivery"); !math.IsNaN(r.Value) {
		t.Errorf("redelivery without episodes = %v, want NaN", r.Value)
	}
}

// Clustered n_eff: two templates of 5 with outcomes (1,1,1,1,0) and
// (0,0,0,0,1). By hand the cluster means are 0.8 and 0.2, SSB = 2·5·0.3² =
// 0.9 = MSB, SSW = 2·(4·0.2² + 0.8²) = 1.6, MSW = 1.6/8 = 0.2, m₀ = 5, so
// ρ̂ = 0.7/1.7 = 0.4118 and n_eff = 10/(1 + 4·0.4118) = 3.778.
func TestClusteredNEff(t *testing.T) {
	d := &table.Data{}
	for i := range 10 {
		tm := "T01"
		if i >= 5 {
			tm = "T02"
		}
		e := ep("E1", "m", "vanilla", tm, ledger.FaultRedelivery)
		e.Duplicated = (i < 4) || i == 9
		d.Append(e)
	}
	tb, err := Table3(d)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := tb.Cell("m", "dup_redelivery")
	if !near(c.NEff, 10/(1+4*0.7/1.7), 1e-9) || c.Value != 50 {
		t.Errorf("n_eff %v value %v", c.NEff, c.Value)
	}
}

// P(δ ≤ Δ) counts distinct tail worlds: delays 30, 70, 200 and 400 s give
// 25% for Δ = 60 s and 75% for Δ = 300 s.
func TestTable6PDelta(t *testing.T) {
	d := &table.Data{}
	for i, dl := range []float64{30, 70, 200, 400} {
		for _, cond := range []string{"wait-60", "wait-300"} {
			e := ep("E5", "m", cond, fmt.Sprintf("T%02d", i), ledger.FaultTimeoutLateTail)
			e.DelayS = dl
			d.Append(e)
		}
	}
	tb, err := Table6(d)
	if err != nil {
		t.Fatal(err)
	}
	for cond, want := range map[string]float64{"wait-60": 25, "wait-300": 75} {
		if c, _ := tb.Cell(cond, "p_delta"); c.Value != want {
			t.Errorf("%s: P(δ ≤ Δ) = %v, want %v", cond, c.Value, want)
		}
	}
}

// A ledger without a needed column gets an error naming it.
func TestMissingColumns(t *testing.T) {
	d := &table.Data{Columns: []string{"experiment", "model", "template", "fault_mode", "fault_fired", "duplicated", "eos"}}
	d.Append(ep("E1", "m", "vanilla", "T01", ledger.FaultNone))
	_, err := Table3(d)
	var mc *MissingColumnsError
	if !errors.As(err, &mc) || len(mc.Missing) != 1 || mc.Missing[0] != "task_success" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "Table 3 needs column(s) task_success") {
		t.Errorf("message %q", err)
	}
	res := Analyze(d, Options{})
	if len(res.Warnings) == 0 || res.Table(3) != nil {
		t.Errorf("Analyze: warnings %v", res.Warnings)
	}
}

// Every published number in paper.json addresses a real cell of its table
// when computed on the sample (so --compare-paper never silently drops one).
func TestPaperReferenceAddressesCells(t *testing.T) {
	res := Analyze(loadSample(t), Options{})
	seen := map[int]bool{}
	for _, tb := range res.Tables {
		for _, c := range Compare(tb) {
			seen[c.Table] = true
			if c.MissingInRun && rowExists(tb, c.Row) {
				t.Errorf("paper value table %d row %q col %q has no cell", c.Table, c.Row, c.Col)
			}
		}
	}
	for _, n := range []int{3, 4, 5, 6, 7, 8, 9, 10, 13} {
		if !seen[n] {
			t.Errorf("no paper values for Table %d", n)
		}
	}
}

// rowExists reports whether the run's table has the row (the sample lacks
// some of the paper's models and harnesses; a present row must have every
// published column).
func rowExists(t *Table, key string) bool {
	for _, r := range t.Rows {
		if r.Key == key {
			return true
		}
	}
	return false
}

// Hand checks of golden cells: each recounts a cell of the sample ledger
// with a plain loop written from the paper's definition, independently of
// the table code (the goldens under testdata/analysis/golden then pin the
// rendering).
func TestSampleHandChecks(t *testing.T) {
	d := loadSample(t)
	count := func(keep func(*ledger.Episode) bool, y func(*ledger.Episode) bool) (k, n int) {
		for _, e := range d.Episodes() {
			if keep(e) {
				n++
				if y(e) {
					k++
				}
			}
		}
		return k, n
	}
	dup := func(e *ledger.Episode) bool { return e.Duplicated }
	// Table 3, mai-code-1.1-flash, lost ack / 500 / partial (E1 ∪ E1s).
	k, n := count(func(e *ledger.Episode) bool {
		return (e.Experiment == "E1" || e.Experiment == "E1s") && e.Model == "mai-code-1.1-flash" && e.FaultFired &&
			(e.FaultMode == "timeout_post" || e.FaultMode == "http500_post" || e.FaultMode == "partial_batch")
	}, dup)
	t3, _ := Table3(d)
	if c, _ := t3.Cell("mai-code-1.1-flash", "dup_resolves"); c.N != n || !near(c.Value, 100*float64(k)/float64(n), 1e-12) {
		t.Errorf("Table 3 mai resolves: %v of %d, recount %d/%d", c.Value, c.N, k, n)
	}
	// Table 5, native vanilla, timeout (committed), E2 models pooled.
	k, n = count(func(e *ledger.Episode) bool {
		return e.Experiment == "E2" && e.Contract == "native" && e.Condition == "vanilla" && e.FaultMode == "timeout_post" && e.FaultFired
	}, dup)
	t5, _ := Table5(d)
	if c, _ := t5.Cell("native/vanilla", "timeout_post"); c.N != n || !near(c.Value, 100*float64(k)/float64(n), 1e-12) {
		t.Errorf("Table 5: %v of %d, recount %d/%d", c.Value, c.N, k, n)
	}
	// Table 13, guard vs vanilla: discordant pairs by pair_key.
	g, v := map[string]bool{}, map[string]bool{}
	for _, e := range d.Episodes() {
		if e.Experiment == "E2" && e.Contract == "native" && e.FaultMode != "none" && e.FaultFired {
			switch e.Condition {
			case "guard":
				g[e.PairKey] = e.EOS
			case "vanilla":
				v[e.PairKey] = e.EOS
			}
		}
	}
	b, c := 0, 0
	for key, ge := range g {
		if ve, ok := v[key]; ok && ge != ve {
			if ge {
				b++
			} else {
				c++
			}
		}
	}
	t13, _ := Table13(d)
	cb, _ := t13.Cell("vanilla", "b")
	cc, _ := t13.Cell("vanilla", "c")
	if int(cb.Value) != b || int(cc.Value) != c {
		t.Errorf("Table 13 vanilla: b, c = %v, %v; recount %d, %d", cb.Value, cc.Value, b, c)
	}
}

// Degenerate ledgers never panic: every table still comes back, with NaN
// cells and warnings.
func TestDegenerateLedgers(t *testing.T) {
	one := ep("E1", "m", "vanilla", "T01", ledger.FaultTimeoutPost)
	constant := &table.Data{}
	for i := range 30 {
		for _, exp := range []string{"E1", "E2", "E3", "E3k", "E5", "E6"} {
			e := ep(exp, "m", []string{"vanilla", "guard"}[i%2], fmt.Sprintf("T%02d", i%3), []string{ledger.FaultTimeoutPost, ledger.FaultTimeoutLateTail, ledger.FaultRedelivery}[i%3])
			e.PairKey = fmt.Sprint(i)
			if exp == "E6" {
				e.Cue = ledger.CuePlain
			}
			constant.Append(e)
		}
	}
	for name, d := range map[string]*table.Data{"empty": {}, "one episode": table.NewData([]*ledger.Episode{one}), "constant outcomes": constant} {
		res := Analyze(d, Options{})
		if len(res.Tables) != len(TableNumbers) || len(res.Hypotheses) != 6 {
			t.Errorf("%s: %d tables, %d hypotheses, warnings %v", name, len(res.Tables), len(res.Hypotheses), res.Warnings)
		}
		if t4 := res.Table(4); t4 == nil || len(t4.Warnings) == 0 {
			t.Errorf("%s: Table 4 without warnings", name)
		}
	}
}

// onlyColumns copies the episodes keeping only cols (the others zero), as a
// reader that decodes only those columns would.
func onlyColumns(t *testing.T, d *table.Data, cols []string) *table.Data {
	t.Helper()
	out := &table.Data{Columns: cols}
	for _, e := range d.Episodes() {
		b, _ := json.Marshal(e)
		var m map[string]any
		json.Unmarshal(b, &m)
		for k := range m {
			if !slices.Contains(cols, k) {
				delete(m, k)
			}
		}
		b, _ = json.Marshal(m)
		c := new(ledger.Episode)
		if err := json.Unmarshal(b, c); err != nil {
			t.Fatal(err)
		}
		out.Append(c)
	}
	return out
}

// TableColumns and the figures' columns are complete: each table computed
// from only its declared columns equals the table computed from every
// column (a field read but not declared would silently be zero under
// Parquet column projection).
func TestTableColumnsComplete(t *testing.T) {
	d := loadSample(t)
	type pair struct{ full, part *Table }
	var pairs []pair
	for _, n := range TableNumbers {
		if n == 11 {
			continue
		}
		full, err := BuildTable(d, n, Options{})
		if err != nil {
			t.Fatal(err)
		}
		part, err := BuildTable(onlyColumns(t, d, TableColumns(n)), n, Options{})
		if err != nil {
			t.Fatalf("Table %d from its columns: %v", n, err)
		}
		pairs = append(pairs, pair{full, part})
	}
	ff, err := BuildFigures(d)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := BuildFigures(onlyColumns(t, d, FigureColumns()))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range ff.Tables() {
		pairs = append(pairs, pair{f, fp.Tables()[i]})
	}
	for _, p := range pairs {
		full, part := p.full, p.part
		for i, r := range full.Rows {
			if i >= len(part.Rows) || part.Rows[i].Key != r.Key {
				t.Fatalf("%s: rows differ", full.ID())
			}
			for j, c := range r.Cells {
				if !cellsEqual(c, part.Rows[i].Cells[j]) || c.N != part.Rows[i].Cells[j].N {
					t.Errorf("%s row %s col %s: %v from all columns, %v from its declared columns", full.ID(), r.Key, full.Columns[j].Key, c.Value, part.Rows[i].Cells[j].Value)
				}
			}
		}
	}
}
