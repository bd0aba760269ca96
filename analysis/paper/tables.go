package paper

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Columns each table reads (beyond these, nothing): a ledger lacking one
// gets a MissingColumnsError naming it.
var tableColumns = map[int][]string{
	3:  {"experiment", "model", "template", "fault_mode", "fault_fired", "duplicated", "task_success", "eos"},
	4:  {"experiment", "model", "harness", "contract", "condition", "write_class", "fault_mode", "fault_fired", "duplicated"},
	5:  {"experiment", "contract", "condition", "fault_mode", "fault_fired", "duplicated", "template"},
	6:  {"experiment", "contract", "condition", "fault_mode", "fault_fired", "duplicated", "eos", "agent_time_s", "delay_s", "instance", "focal_index"},
	7:  {"experiment", "model", "contract", "condition", "fault_mode", "fault_fired", "duplicated", "task_success", "eos", "tool_calls", "agent_time_s"},
	8:  {"experiment", "harness", "model", "contract", "condition", "template", "fault_mode", "fault_fired", "duplicated", "eos"},
	9:  {"experiment", "harness", "model", "contract", "condition", "fault_mode", "fault_fired", "duplicated", "eos"},
	10: {"experiment", "model", "harness", "contract", "condition", "cue", "pair_key", "fault_mode", "fault_fired", "duplicated", "task_success", "eos"},
	12: {"experiment", "model", "harness", "contract", "condition", "template", "write_class", "read_path", "reversible", "fault_mode", "fault_fired", "duplicated", "task_success", "recovery", "reported_success", "uncertainty_listed", "overclaim"},
	13: {"experiment", "model", "contract", "condition", "pair_key", "fault_mode", "fault_fired", "eos"},
}

// TableColumns returns every episode column table n reads, so a reader may
// decode only these (nil for Table 11, which reads the sandbox's
// catalogue). Rates also read template (the cluster) and weight; Table 12
// (the hypotheses) includes Table 4's columns for H2.
func TableColumns(n int) []string {
	if n == 11 {
		return nil
	}
	cols := slices.Clone(tableColumns[n])
	extra := []string{"template", "weight"}
	switch n {
	case 7:
		extra = append(extra, "cost_usd")
	case 12:
		extra = append(extra, tableColumns[4]...)
	}
	for _, c := range extra {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// expIn selects episodes of the given experiments.
func expIn(exps ...string) func(row) bool {
	return func(e row) bool { return in(e.Experiment(), exps...) }
}

// Table3 is E1 by model: duplicate rates under committed faults (read-back
// resolves: lost ack, misleading 500, partial batch; late commit;
// redelivery), TS in not-executed worlds and EOS over all faulted episodes,
// each with a Wilson interval on the clustered n_eff. E1s (the extra
// partial-batch instances) is pooled with E1, as in the paper's Figure 2.
// The ICC of the intervals follows the default convention (DefaultICC).
func Table3(d *table.Data) (*Table, error) { return Table3With(d, DefaultICC) }

// ICC is how Table 3 estimates the template ICC behind its intervals
// (Options.ICC, the CLI's --icc).
type ICC string

// Table 3's ICC conventions.
const (
	// ICCPerColumn estimates one ICC per column over every model
	// (docs/methods.md, "Intervals on rates"): a column whose outcome
	// hardly varies (TS near 100%, no duplicates) gets an ICC near 0 and
	// a narrow interval.
	ICCPerColumn ICC = "per-column"
	// ICCPooled estimates the ICC of each column as ICCPerColumn does and
	// applies their mean (weighted by template count, as RatesSpec.ICCBy
	// pools strata) to every column: one ICC for the whole table, which
	// the paper's near-equal n_eff across columns implies it used
	// (docs/simulation.md, pass 6), and which gives a column whose
	// outcome hardly varies the width of the others.
	ICCPooled ICC = "pooled"
)

// DefaultICC is the convention of Table 3 when Options.ICC is "": the
// pooled one, the only one that reproduces the paper's 25 intervals
// (widths 0.74–0.94 of the paper's, against 0.25–1.21 per column;
// docs/simulation.md, pass 6).
const DefaultICC = ICCPooled

// ICCConventions lists the values of ICC.
var ICCConventions = []ICC{ICCPerColumn, ICCPooled}

// String is the convention's name, as --icc takes it.
func (c ICC) String() string { return string(c) }

// UnmarshalText accepts a convention's name ("" is the default); the
// error names the accepted values.
func (c *ICC) UnmarshalText(b []byte) error {
	v := ICC(b)
	if err := v.check(); err != nil {
		return err
	}
	*c = v
	return nil
}

// check fails on a value that is no convention ("" is the default).
func (c ICC) check() error {
	if c == "" || slices.Contains(ICCConventions, c) {
		return nil
	}
	return fmt.Errorf("ICC convention %q: want per-column or pooled", string(c))
}

// Table3With is Table3 with the ICC convention icc (DefaultICC when "").
func Table3With(d *table.Data, icc ICC) (*Table, error) { return table3(d, Options{ICC: icc}) }

// table3 is Table 3 with the options' ICC convention and bootstrap.
func table3(d *table.Data, opt Options) (*Table, error) {
	icc := opt.ICC
	if err := icc.check(); err != nil {
		return nil, fmt.Errorf("Table 3: %w", err)
	}
	if icc == "" {
		icc = DefaultICC
	}
	if err := require(d, "Table 3", tableColumns[3]); err != nil {
		return nil, err
	}
	h := hold(d)
	eps := h.filter(expIn("E1", "E1s"))
	t := &Table{
		Number:      3,
		Title:       "E1 results by model",
		Caption:     "E1 results by model with 95% intervals (Wilson on clustered effective sample sizes, ICC over task templates pooled per column). Duplicate rates are conditional on the fault having fired; TS (not executed) is task success in the _pre worlds; EOS is over all faulted episodes.",
		LabelHeader: []string{"Model"},
		Columns: []Column{
			{Key: "dup_resolves", Label: "lost ack / 500 / partial", Group: "Duplicate rate (%) under committed faults", ShowCI: true},
			{Key: "dup_late", Label: "late commit", Group: "Duplicate rate (%) under committed faults", ShowCI: true},
			{Key: "dup_redelivery", Label: "redelivery", Group: "Duplicate rate (%) under committed faults", ShowCI: true},
			{Key: "ts_pre", Label: "TS (%) when not executed", ShowCI: true},
			{Key: "eos_faulted", Label: "EOS (%) all faults", ShowCI: true},
		},
	}
	if len(eps) == 0 {
		t.warnf("no E1 episodes")
	}
	models := ordered(eps, modelOf, paperModels)
	t.Rows = newRows(models, oneLabel(models), len(t.Columns))
	cols := []rateCol{
		{"dup_resolves", func(e row) bool { return e.FaultFired() && in(e.FaultMode(), resolvesModes...) }, dupOf},
		{"dup_late", func(e row) bool { return e.FaultFired() && in(e.FaultMode(), lateModes...) }, dupOf},
		{"dup_redelivery", func(e row) bool { return e.FaultFired() && in(e.FaultMode(), redeliveryModes...) }, dupOf},
		{"ts_pre", func(e row) bool { return e.FaultFired() && isPre(e.FaultMode()) }, tsOf},
		{"eos_faulted", faulted, eosOf},
	}
	boot, err := newTableBoot(d, opt.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("Table 3: %w", err)
	}
	if icc == ICCPooled {
		pooledRateColumns(t, eps, cols, modelOf, models, boot)
		t.Caption = strings.Replace(t.Caption, "ICC over task templates pooled per column", "one ICC over task templates pooled across the columns", 1)
	} else {
		for j, c := range cols {
			rateColumnBoot(t, eps, c, j, modelOf, models, boot)
		}
	}
	if boot != nil {
		t.Caption = strings.Replace(t.Caption, "with 95% intervals (Wilson on clustered effective sample sizes", "with "+boot.what()+" (the Wilson intervals' effective sample sizes", 1)
	}
	return t, nil
}

// pooledRateColumns fills every column of cols as rateColumn does, but with
// one ICC for all of them: the engine's Rates over the stacked (episode,
// column) rows grouped by column and group, with the ICC estimated within
// each column and pooled (RatesSpec.ICCBy). Rates and n come out as per
// column; only n_eff and the intervals change.
func pooledRateColumns(t *Table, eps []row, cols []rateCol, groupOf func(row) string, groups []string, boot *tableBoot) {
	fr := newRateFrame([]string{"column", "group"}, true, boot)
	lead := make([]string, 2)
	for _, c := range cols {
		for _, e := range eps {
			if !c.scope(e) {
				continue
			}
			lead[0], lead[1] = c.key, groupOf(e)
			fr.add(e, lead, c.y(e), episodeWeight(e, true))
		}
	}
	if fr.n == 0 {
		for j := range cols {
			rateColumnBoot(t, eps, cols[j], j, groupOf, groups, boot)
		}
		return
	}
	res, err := analysis.Rates(analysis.Query{Source: analysis.Built(fr.b.Frame()), Weight: "w"}, analysis.RatesSpec{Outcome: "y", By: []string{"column", "group"}, Cluster: "template", ICCBy: []string{"column"},
		Bootstrap: boot.rates()})
	if err != nil {
		// Frames built here always carry their columns; an error is a bug.
		panic("paper: pooledRateColumns: " + err.Error())
	}
	for _, w := range res.Warnings {
		t.warnf("%s", w)
	}
	got := map[[2]string]analysis.RateRow{}
	for _, r := range res.Rows {
		got[[2]string{r.Levels[0], r.Levels[1]}] = r
	}
	for j, c := range cols {
		for i, g := range groups {
			r, ok := got[[2]string{c.key, g}]
			if !ok {
				t.warnf("%s / %s: no episodes", t.Rows[i].Labels[len(t.Rows[i].Labels)-1], t.columnLabel(c.key))
			}
			t.Rows[i].Cells[j] = boot.cell(rateCellOf(r, ok), r.Boot, 100)
		}
	}
}

// Table5 is the duplicate rate by contract variant and condition (vanilla,
// guard) under each committed fault and redelivery, E2 and E2k with all
// models pooled.
func Table5(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 5", tableColumns[5]); err != nil {
		return nil, err
	}
	eps := h.filter(func(e row) bool {
		return in(e.Experiment(), "E2", "E2k") && in(e.Condition(), "vanilla", "guard")
	})
	t := &Table{
		Number:      5,
		Title:       "Duplicate rate by contract variant and condition",
		Caption:     "Duplicate rate (%) by contract variant and condition under committed faults and redelivery (E2, E2k; models pooled).",
		LabelHeader: []string{"Contract", "Condition"},
	}
	// The committed faults and redelivery with a fixed delay or none (the
	// heavy tail is E5's: Table 6), in the order of what happened
	// underneath: committed, late, partial, redelivered.
	var modes []ledger.FaultMode
	for _, m := range ledger.Faults() {
		if (m.Committed() || m.Family == ledger.FamilyRedelivery) && m.Delay != ledger.DelayDrawn {
			modes = append(modes, m)
		}
	}
	modes = shown(modes, eps)
	slices.SortStableFunc(modes, func(a, b ledger.FaultMode) int { return cmp.Compare(a.Fate, b.Fate) })
	for _, m := range modes {
		t.Columns = append(t.Columns, Column{Key: m.Name, Label: m.Label})
	}
	var keys []string
	var labels [][]string
	for _, ct := range ledger.Contracts.Values {
		for _, cond := range []string{"vanilla", "guard"} {
			keys = append(keys, ct+"/"+cond)
			labels = append(labels, []string{ct, cond})
		}
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	if len(eps) == 0 {
		t.warnf("no E2/E2k vanilla or guard episodes")
	}
	group := joined(contractCol, conditionCol, "/")
	for j, m := range modes {
		mode := m.Name
		rateColumn(t, eps, rateCol{mode, func(e row) bool { return e.FaultFired() && e.FaultMode() == mode }, dupOf}, j, group, keys)
	}
	return t, nil
}

// Table6 is waiting against keys under late commits: EOS, duplicate rate
// and mean agent-visible time (minutes) with the fixed 90 s delay and with
// the heavy-tailed delay, and P(δ ≤ Δ) over the tail worlds for each
// wait-Δ condition. Fixed-delay rows for conditions E5 did not rerun come
// from the matched E2/E2k episodes; "keys" is the keys-everywhere contract
// under the vanilla condition.
func Table6(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 6", tableColumns[6]); err != nil {
		return nil, err
	}
	t := &Table{
		Number:      6,
		Title:       "Waiting versus keys under late commits",
		Caption:     "Waiting versus keys under late commits (E5). \"time\" is the mean agent-visible episode time in simulated minutes; P(δ ≤ Δ) is the fraction of tail-delay worlds whose in-flight delay does not exceed the assumed bound. Fixed-delay rows for vanilla, guard, both oracles and the keys contract are the matched E2/E2k episodes.",
		LabelHeader: []string{"Condition"},
		Columns: []Column{
			{Key: "fixed_eos", Label: "EOS (%)", Group: "fixed delay (90 s)"},
			{Key: "fixed_dup", Label: "dup. (%)", Group: "fixed delay (90 s)"},
			{Key: "fixed_time", Label: "time (min)", Group: "fixed delay (90 s)"},
			{Key: "tail_eos", Label: "EOS (%)", Group: "heavy-tailed delay (40 s–2 h)"},
			{Key: "tail_dup", Label: "dup. (%)", Group: "heavy-tailed delay (40 s–2 h)"},
			{Key: "tail_time", Label: "time (min)", Group: "heavy-tailed delay (40 s–2 h)"},
			{Key: "p_delta", Label: "P(δ ≤ Δ) (%)", Group: "heavy-tailed delay (40 s–2 h)"},
		},
	}
	rowsSpec := []struct{ key, label, cond, contract string }{
		{"vanilla", "vanilla", "vanilla", ledger.ContractNative},
		{"guard", "guard", "guard", ledger.ContractNative},
		{"state-oracle", "state oracle", "state-oracle", ledger.ContractNative},
		{"outcome-oracle", "outcome oracle", "outcome-oracle", ledger.ContractNative},
		{"keys", "keys everywhere", "vanilla", ledger.ContractKeysEverywhere},
	}
	// wait-Δ conditions present in the data, in increasing Δ.
	var waits []int
	for e := range h.each() {
		if s, ok := strings.CutPrefix(e.Condition(), "wait-"); ok {
			var w int
			if _, err := fmt.Sscanf(s, "%d", &w); err == nil && !containsInt(waits, w) {
				waits = append(waits, w)
			}
		}
	}
	sortInts(waits)
	for _, w := range waits {
		c := fmt.Sprintf("wait-%d", w)
		rowsSpec = append(rowsSpec, struct{ key, label, cond, contract string }{c, fmt.Sprintf("wait %d s", w), c, ledger.ContractNative})
	}
	var keys []string
	var labels [][]string
	for _, r := range rowsSpec {
		keys = append(keys, r.key)
		labels = append(labels, []string{r.label})
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	fixed := h.filter(func(e row) bool {
		return in(e.Experiment(), "E2", "E2k", "E5") && in(e.FaultMode(), fixedDelayModes...) && e.FaultFired()
	})
	tail := h.filter(func(e row) bool {
		return e.Experiment() == "E5" && in(e.FaultMode(), drawnDelayModes...) && e.FaultFired()
	})
	if len(fixed)+len(tail) == 0 {
		t.warnf("no late-commit episodes in E2/E2k/E5")
	}
	group := func(e row) string {
		if e.Contract() == ledger.ContractKeysEverywhere {
			if e.Condition() == "vanilla" {
				return "keys"
			}
			return "keys/" + e.Condition()
		}
		return e.Condition()
	}
	all := func(row) bool { return true }
	timeMin := func(e row) (float64, bool) { return e.AgentTimeS() / 60, true }
	for k, set := range [][]row{fixed, tail} {
		off := 3 * k
		rateColumn(t, set, rateCol{t.Columns[off].Key, all, eosOf}, off, group, keys)
		rateColumn(t, set, rateCol{t.Columns[off+1].Key, all, dupOf}, off+1, group, keys)
		by := groupBy(set, group)
		for i, key := range keys {
			t.Rows[i].Cells[off+2] = meanCell(by[key], timeMin, 1)
		}
	}
	// P(δ ≤ Δ) over the distinct tail worlds (delays are shared by models).
	worlds := map[string]float64{}
	for _, e := range tail {
		worlds[e.Template()+"#"+fmt.Sprint(e.Instance())+"/"+fmt.Sprint(e.FocalIndex())] = e.DelayS()
	}
	for i, r := range rowsSpec {
		c := numCell(Percent, nan, 0)
		c.Design = true
		if s, ok := strings.CutPrefix(r.cond, "wait-"); ok && len(worlds) > 0 {
			var w float64
			fmt.Sscanf(s, "%g", &w)
			var k int
			for _, dl := range worlds {
				if dl <= w {
					k++
				}
			}
			c.Value = 100 * float64(k) / float64(len(worlds))
			c.N = len(worlds)
		}
		t.Rows[i].Cells[6] = c
	}
	return t, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func sortInts(s []int) { slices.Sort(s) }

// e2Conditions are Table 7's columns in the paper's order.
var e2Conditions = []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr", "guard", "state-oracle", "outcome-oracle"}

// Table7 is the recovery conditions of E2 (native contract): per model and
// condition EOS, duplicate rate and TS over faulted episodes, mean tool
// calls and mean agent-visible minutes per faulted episode, and mean cost
// per episode over all models where the ledger carries cost_usd.
func Table7(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 7", tableColumns[7]); err != nil {
		return nil, err
	}
	eps := h.filter(func(e row) bool {
		return e.Experiment() == "E2" && e.Contract() == ledger.ContractNative && faulted(e)
	})
	t := &Table{
		Number:      7,
		Title:       "Recovery conditions (E2)",
		Caption:     "Recovery conditions (E2). EOS, duplicate rate and TS are over faulted episodes; tool calls and time are means per faulted episode; the cost row is the mean cost per episode over all models. The state oracle verifies against the current ground truth and cannot see requests still in flight; the outcome oracle can, and is the upper bound for any client-side policy.",
		LabelHeader: []string{"Metric", "Model"},
	}
	conds := ordered(eps, conditionOf, e2Conditions)
	for _, c := range conds {
		t.Columns = append(t.Columns, Column{Key: c, Label: strings.ReplaceAll(c, "-oracle", " oracle")})
	}
	models := ordered(eps, modelOf, paperModels)
	if len(eps) == 0 {
		t.warnf("no faulted E2 episodes")
	}
	type metric struct {
		key, label string
		y          func(row) float64
		mean       func(row) (float64, bool)
		digits     int
	}
	metrics := []metric{
		{key: "eos", label: "EOS (%)", y: eosOf},
		{key: "dup", label: "Duplicate rate (%)", y: dupOf},
		{key: "ts", label: "TS (%)", y: tsOf},
		{key: "calls", label: "Tool calls (mean)", mean: func(e row) (float64, bool) { return float64(e.ToolCalls()), true }, digits: 1},
		{key: "time", label: "Time (min, mean)", mean: func(e row) (float64, bool) { return e.AgentTimeS() / 60, true }, digits: 1},
	}
	var keys []string
	var labels [][]string
	for _, m := range metrics {
		for _, mo := range models {
			keys = append(keys, m.key+"/"+mo)
			labels = append(labels, []string{m.label, mo})
		}
	}
	hasCost := false
	for _, e := range eps {
		if _, ok := e.CostUSD(); ok {
			hasCost = true
			break
		}
	}
	if hasCost {
		keys = append(keys, "cost/all")
		labels = append(labels, []string{"Cost (USD per episode)", "all models"})
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	// ICC pooled over the experiment (all conditions and models) per metric.
	all := func(row) bool { return true }
	cellKey := joined(conditionCol, modelCol, "\x00")
	rates := make([]map[string]analysis.RateRow, len(metrics))
	means := make([]map[string]*meanSum, len(metrics))
	for mi, m := range metrics {
		if m.mean != nil {
			means[mi] = meansBy(eps, cellKey, m.mean)
		}
		if m.y != nil {
			var warns []analysis.Warning
			rates[mi], _, warns = clusteredRates(eps, rateCol{m.key, all, m.y}, cellKey, true)
			for _, w := range warns {
				t.warnf("%s: %s", m.key, w)
			}
		}
	}
	var costs map[string]*meanSum
	if hasCost {
		costs = meansBy(eps, conditionOf, func(e row) (float64, bool) { return e.CostUSD() })
	}
	for j, cond := range conds {
		for mi, m := range metrics {
			rowOff := mi * len(models)
			for i, mo := range models {
				if m.y != nil {
					r, ok := rates[mi][cond+"\x00"+mo]
					t.Rows[rowOff+i].Cells[j] = rateCellOf(r, ok)
				} else {
					t.Rows[rowOff+i].Cells[j] = meanOf(means[mi], cond+"\x00"+mo, m.digits)
				}
			}
		}
		if hasCost {
			t.Rows[len(t.Rows)-1].Cells[j] = meanOf(costs, cond, 3)
		}
	}
	return t, nil
}

// Table8 is the production harnesses of E3 (native contract): duplicate
// rates of the native (vanilla) condition by fault family with intervals,
// EOS over faulted episodes natively and with the guard, and n (faulted
// native episodes).
func Table8(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 8", tableColumns[8]); err != nil {
		return nil, err
	}
	eps := h.filter(func(e row) bool {
		return e.Experiment() == "E3" && e.Contract() == ledger.ContractNative && in(e.Condition(), "vanilla", "guard")
	})
	t := &Table{
		Number:      8,
		Title:       "Production harnesses (E3)",
		Caption:     "Production harnesses (E3). Duplicate rates are for the native condition by fault family; EOS is over faulted episodes, natively and with the guard deployed in the MCP server; n is the number of faulted native episodes.",
		LabelHeader: []string{"Harness", "Model"},
		Columns: []Column{
			{Key: "dup_committed", Label: "committed", Group: "Duplicate rate (%), native", ShowCI: true},
			{Key: "dup_late", Label: "late", Group: "Duplicate rate (%), native", ShowCI: true},
			{Key: "dup_redelivery", Label: "redelivery", Group: "Duplicate rate (%), native", ShowCI: true},
			{Key: "eos_native", Label: "EOS (%) native", ShowCI: true},
			{Key: "eos_guard", Label: "EOS (%) guard", ShowCI: true},
			{Key: "n", Label: "n"},
		},
	}
	if len(eps) == 0 {
		t.warnf("no E3 episodes")
	}
	harnesses := ordered(eps, harnessOf, ledger.PaperHarnesses)
	var keys []string
	var labels [][]string
	for _, h := range harnesses {
		for _, m := range ordered(filterEps(eps, func(e row) bool { return e.Harness() == h }), modelOf, paperModels) {
			keys = append(keys, h+"/"+m)
			labels = append(labels, []string{h, m})
		}
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	group := joined(harnessCol, modelCol, "/")
	native := func(e row) bool { return e.Condition() == "vanilla" }
	cols := []rateCol{
		{"dup_committed", func(e row) bool {
			return native(e) && e.FaultFired() && in(e.FaultMode(), resolvesModes...)
		}, dupOf},
		{"dup_late", func(e row) bool { return native(e) && e.FaultFired() && in(e.FaultMode(), lateModes...) }, dupOf},
		{"dup_redelivery", func(e row) bool {
			return native(e) && e.FaultFired() && in(e.FaultMode(), redeliveryModes...)
		}, dupOf},
		{"eos_native", func(e row) bool { return native(e) && faulted(e) }, eosOf},
		{"eos_guard", func(e row) bool { return e.Condition() == "guard" && faulted(e) }, eosOf},
	}
	for j, c := range cols {
		rateColumn(t, eps, c, j, group, keys)
	}
	for i := range t.Rows {
		t.Rows[i].Cells[5] = countCell(t.Rows[i].Cells[3].N)
	}
	return t, nil
}

// Table9 is the duplicate rate under committed faults and redelivery for
// each model of E3k (the paper's gpt-5.6-sol) in each harness, by contract
// variant and condition (E3 and E3k), with EOS under keys everywhere plus
// the guard.
func Table9(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 9", tableColumns[9]); err != nil {
		return nil, err
	}
	k := h.filter(expIn("E3k"))
	models := ordered(k, modelOf, paperModels)
	eps := h.filter(func(e row) bool {
		return in(e.Experiment(), "E3", "E3k") && in(e.Model(), models...) && in(e.Condition(), "vanilla", "guard")
	})
	t := &Table{
		Number:      9,
		Title:       "Duplicate rate per harness, contract and condition",
		Caption:     "Duplicate rate (%) under committed faults and redelivery for each E3k model in each harness, by contract variant and condition (E3 and E3k); the last column is exactly-once success with keys everywhere and the guard.",
		LabelHeader: []string{"Harness", "Model"},
		Columns: []Column{
			{Key: "native/vanilla", Label: "vanilla", Group: "native contract"},
			{Key: "native/guard", Label: "guard", Group: "native contract"},
			{Key: "keys-everywhere/vanilla", Label: "vanilla", Group: "keys everywhere"},
			{Key: "keys-everywhere/guard", Label: "guard", Group: "keys everywhere"},
			{Key: "eos_keys_guard", Label: "EOS (%) keys + guard"},
		},
	}
	if len(k) == 0 {
		t.warnf("no E3k episodes")
	}
	var keys []string
	var labels [][]string
	for _, h := range ordered(eps, harnessOf, ledger.PaperHarnesses) {
		for _, m := range models {
			keys = append(keys, h+"/"+m)
			labels = append(labels, []string{h, m})
		}
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	group := joined(harnessCol, modelCol, "/")
	for j := 0; j < 4; j++ {
		ct, cond, _ := strings.Cut(t.Columns[j].Key, "/")
		rateColumn(t, eps, rateCol{t.Columns[j].Key, func(e row) bool {
			return e.Contract() == ct && e.Condition() == cond && committedOrRedelivery(e)
		}, dupOf}, j, group, keys)
	}
	rateColumn(t, eps, rateCol{"eos_keys_guard", func(e row) bool {
		return e.Contract() == ledger.ContractKeysEverywhere && e.Condition() == "guard" && faulted(e)
	}, eosOf}, 4, group, keys)
	return t, nil
}

// Table10 is the cue ablation (E6): plain-cue episodes paired by pair_key
// with the default-cue episode of the same world (E6's own default arm if
// present, else the matched E1 episode), per fault family, with exact
// McNemar tests and no multiplicity correction.
func Table10(d *table.Data) (*Table, error) {
	h := hold(d)
	if err := require(d, "Table 10", tableColumns[10]); err != nil {
		return nil, err
	}
	t := &Table{
		Number:      10,
		Title:       "Cue ablation (E6)",
		Caption:     "Cue ablation (E6): the same worlds with the default instruction and with the closing \"exactly once\" sentence removed (exact McNemar tests on paired episodes; Δ = plain − default).",
		LabelHeader: []string{"Fault family", "metric"},
		Columns: []Column{
			{Key: "default", Label: "default (%)"},
			{Key: "plain", Label: "plain (%)"},
			{Key: "delta", Label: "Δ (pp)"},
			{Key: "p", Label: "McNemar p"},
			{Key: "pairs", Label: "pairs"},
		},
	}
	plainArm := h.filter(func(e row) bool { return e.Cue() == ledger.CuePlain })
	// Keyed on the codes of harness and pair_key: the same text is the
	// same code within one Data, and a code costs no string per episode.
	var defaults pairIndex
	for e := range h.each() {
		if e.Cue() == ledger.CuePlain || e.Condition() != "vanilla" || e.Contract() != ledger.ContractNative || !in(e.Experiment(), "E6", "E1") {
			continue
		}
		k := e.harnessPair()
		if old, ok := defaults.get(h, k); !ok || (old.Experiment() != "E6" && e.Experiment() == "E6") {
			defaults.set(k, e.i)
		}
	}
	families := []struct {
		key, label, metric string
		modes              []string
		outcome            string
	}{
		{ledger.FamilyPre, "not executed (TS)", "TS", preModes, "task_success"},
		{ledger.FamilyResolves, "read-back resolves", "dup.", resolvesModes, "duplicated"},
		{ledger.FamilyLate, "late commit", "dup.", lateModes, "duplicated"},
		{ledger.FamilyRedelivery, "redelivery", "dup.", redeliveryModes, "duplicated"},
		{ledger.FamilyNone, "no fault (EOS)", "EOS", controlModes, "eos"},
	}
	var keys []string
	var labels [][]string
	for _, f := range families {
		keys = append(keys, f.key)
		labels = append(labels, []string{f.label, f.metric})
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	if len(plainArm) == 0 {
		t.warnf("no plain-cue episodes")
	}
	unmatched := 0
	for i, f := range families {
		// Each plain episode with its chosen default: the engine's pairing
		// (as the paired command) on cue within harness and pair_key.
		var eps []row
		for _, e := range plainArm {
			if !in(e.FaultMode(), f.modes...) {
				continue
			}
			def, ok := defaults.get(h, e.harnessPair())
			if !ok {
				unmatched++
				continue
			}
			if f.key != ledger.FamilyNone && (!e.FaultFired() || !def.FaultFired()) {
				continue
			}
			eps = append(eps, def, e)
		}
		var c analysis.PairedComparison
		if len(eps) > 0 {
			res, err := analysis.Paired(analysis.Query{Source: table.Held(d, indices(eps))}, analysis.PairedSpec{
				Outcome: f.outcome, Arm: "cue", Base: ledger.CueDefault, Levels: []string{ledger.CuePlain},
				PairBy: []string{"harness", "pair_key"}, Test: "exact", Adjust: "none"})
			if err != nil {
				return nil, fmt.Errorf("Table 10: %s: %w", f.label, err)
			}
			c = res.Comparisons[0]
		}
		n := c.Pairs
		p1, p2, delta := nan, nan, nan
		if n > 0 {
			p1, p2 = 100*float64(c.A+c.B)/float64(n), 100*float64(c.A+c.C)/float64(n)
			delta = 100 * float64(c.C-c.B) / float64(n) // plain − default
		}
		cells := t.Rows[i].Cells
		cells[0] = numCell(Percent, p1, 0)
		cells[1] = numCell(Percent, p2, 0)
		cells[2] = numCell(PP, delta, 1)
		cells[3] = pCell(c.P, c.PBelow, c.Log10P)
		if n == 0 {
			cells[3] = pCell(nan, false, nan)
		}
		cells[4] = countCell(n)
		for j := 0; j < 4; j++ {
			cells[j].N = n
		}
		if n == 0 && len(plainArm) > 0 {
			t.warnf("%s: no matched pairs", f.label)
		}
	}
	if unmatched > 0 {
		t.warnf("%d plain-cue episodes have no default-cue episode with the same pair_key", unmatched)
	}
	return t, nil
}

// pCell is a p-value cell for a p-value as the engine reports it
// (analysis.PairedComparison): p itself, or where it underflowed the
// bound stats.PFloor with below set and lp its log₁₀.
func pCell(p float64, below bool, lp float64) Cell {
	c := numCell(PValue, p, 2)
	c.Below = below
	if below {
		c.Log10 = lp
	}
	return c
}

// levelsWhere lists the levels of column col among the episodes of d the
// --where expression where keeps (table.Data.Keep and Levels).
func levelsWhere(d *table.Data, where, col string) ([]string, error) {
	w, err := formula.ParseWhere(where)
	if err != nil {
		return nil, err
	}
	keep, _, err := d.Keep(w)
	if err != nil {
		return nil, err
	}
	levels, _, _, err := d.Levels(keep, col)
	return levels, err
}

// guardComparators are the six non-oracle conditions Table 13 tests the
// guard against, in the paper's order.
var guardComparators = []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr"}

// Table13 is the paired exact McNemar test of the guard against each of the
// six non-oracle conditions on EOS (E2, native contract; pairs share
// pair_key), with Holm's adjustment over those six and the gain in
// percentage points (guard − other).
func Table13(d *table.Data) (*Table, error) {
	if err := require(d, "Table 13", tableColumns[13]); err != nil {
		return nil, err
	}
	t := &Table{
		Number:      13,
		Title:       "Guard against each other condition",
		Caption:     "Paired McNemar tests of the guard against each other condition on exactly-once success (E2; pairs share model, task instance, focal write and fault mode; Holm-adjusted over the six comparisons).",
		LabelHeader: []string{"Guard vs."},
		Columns: []Column{
			{Key: "gain", Label: "EOS gain (pp)"},
			{Key: "pairs", Label: "paired episodes"},
			{Key: "p_holm", Label: "Holm-adjusted p"},
			{Key: "p", Label: "raw p"},
			{Key: "b", Label: "guard only"},
			{Key: "c", Label: "other only"},
		},
	}
	t.Rows = newRows(guardComparators, oneLabel(guardComparators), len(t.Columns))
	// The engine's Paired (as the paired command): within each pair_key,
	// guard and other episodes matched k-th with k-th in episode_id order,
	// exact McNemar tests, Holm over the comparisons present.
	q := analysis.Query{Source: table.Held(d, nil), Where: `experiment == "E2" && contract == "native" && fault_mode != "none" && fault_fired`}
	present, err := levelsWhere(d, q.Where, "condition")
	if err != nil {
		return nil, fmt.Errorf("Table 13: %w", err)
	}
	var others []string
	for _, c := range guardComparators {
		if slices.Contains(present, c) {
			others = append(others, c)
		}
	}
	byOther := map[string]analysis.PairedComparison{}
	switch {
	case !slices.Contains(present, "guard"):
		t.warnf("no faulted E2 guard episodes")
	case len(others) > 0:
		res, err := analysis.Paired(q, analysis.PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", Levels: others,
			PairBy: []string{"pair_key"}, Test: "exact", Adjust: "holm"})
		if err != nil {
			return nil, fmt.Errorf("Table 13: %w", err)
		}
		for _, c := range res.Comparisons {
			byOther[c.Other] = c
		}
	}
	for i, cond := range guardComparators {
		cmp, ok := byOther[cond]
		n := cmp.Pairs
		if slices.Contains(present, "guard") {
			if n == 0 {
				t.warnf("guard vs %s: no matched pairs", cond)
			} else if cmp.UnmatchedBase+cmp.UnmatchedOther > 0 {
				t.warnf("guard vs %s: %d guard and %d %s episode(s) without a partner dropped", cond, cmp.UnmatchedBase, cmp.UnmatchedOther, cond)
			}
		}
		c := t.Rows[i].Cells
		c[0] = numCell(PP, nan, 1)
		c[1] = countCell(n)
		c[2] = pCell(nan, false, nan)
		c[3] = pCell(nan, false, nan)
		c[4] = numCell(Count, nan, 0)
		c[5] = numCell(Count, nan, 0)
		if ok && n > 0 {
			c[0].Value = cmp.GainPP
			c[2] = pCell(cmp.PAdj, cmp.PAdjBelow, cmp.Log10PAdj)
			c[3] = pCell(cmp.P, cmp.PBelow, cmp.Log10P)
			c[4].Value, c[5].Value = float64(cmp.B), float64(cmp.C)
		}
		c[0].N = n
	}
	return t, nil
}
