package paper

import (
	"fmt"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// factor is a categorical regressor of Table 4's decomposition: a row key
// and label, and the ledger column it is.
type factor struct{ key, label, column string }

var (
	factorContract = factor{"contract", "contract", "write_class"}
	factorMode     = factor{"mode", "mode", "fault_mode"}
	factorModel    = factor{"model", "model", "model"}
	factorHarness  = factor{"harness", "harness", "harness"}
)

// shapleyResult is the decomposition of McFadden's R² of a main-effects
// logistic regression of duplicated on factor groups.
type shapleyResult struct {
	Factors  []string                 // factor keys in order
	Shares   []float64                // Shapley value / total, in percent
	Boot     []*analysis.BootInterval // each share's bootstrap interval (nil without one)
	Values   []float64                // Shapley values (R² units)
	Total    float64                  // McFadden R² of the full model
	DupRate  float64                  // percent
	Episodes int
	Warnings []analysis.Warning // the engine's (separation, aliased columns, single levels)
}

// decompose computes the Shapley shares of McFadden's R² = 1 − ℓ/ℓ₀ over
// the factor groups for the 0/1 outcome duplicated of eps (Shapley 1953;
// Israeli 2007 for R² decompositions; docs/methods.md) with the engine's
// Shapley: every subset of factors is fitted as main effects (treatment
// dummies) on episode-level Bernoulli rows.
func decompose(eps []row, fs []factor, boot *tableBoot) (shapleyResult, error) {
	r := shapleyResult{Total: nan, DupRate: nan, Episodes: len(eps), Warnings: []analysis.Warning{}}
	var terms []string
	for _, f := range fs {
		r.Factors = append(r.Factors, f.key)
		r.Shares = append(r.Shares, nan)
		r.Values = append(r.Values, nan)
		terms = append(terms, f.column)
	}
	if len(eps) == 0 {
		return r, fmt.Errorf("no episodes")
	}
	var s float64
	for _, e := range eps {
		s += dupOf(e)
	}
	r.DupRate = 100 * s / float64(len(eps))
	if s == 0 || s == float64(len(eps)) {
		return r, fmt.Errorf("duplicated is constant (%.0f%%): no variance to explain", r.DupRate)
	}
	sd, err := analysis.Shapley(analysis.Query{Source: table.Held(eps[0].h.d, indices(eps))}, analysis.ShapleySpec{Formula: "duplicated ~ " + strings.Join(terms, " + "),
		Bootstrap: boot.rates()})
	if err != nil {
		return r, err
	}
	r.Total = sd.Total
	for j, t := range sd.Terms {
		r.Values[j], r.Shares[j] = t.Value, t.Share
		if boot != nil {
			r.Boot = append(r.Boot, t.ShareBoot)
		}
	}
	r.Warnings = sd.Warnings
	return r, nil
}

// Table4 is the Shapley decomposition of the explained variance in
// duplicates: top block E1 and E1s (minimal scaffold) over {contract class,
// fault mode, model}; bottom block E3 native (native contract, vanilla) over
// {contract class, harness, fault mode, model}. Columns: pooled committed
// faults and redelivery (the preregistered analysis), faults an immediate
// read-back resolves, faults it cannot.
func Table4(d *table.Data) (*Table, error) {
	t, _, err := table4(d, analysis.BootstrapSpec{})
	return t, err
}

// table4 also returns the decompositions for the hypotheses (H2); with
// a bootstrap, the shares get its intervals.
func table4(d *table.Data, bs analysis.BootstrapSpec) (*Table, map[string]shapleyResult, error) {
	h := hold(d)
	if err := require(d, "Table 4", tableColumns[4]); err != nil {
		return nil, nil, err
	}
	boot, err := newTableBoot(d, bs)
	if err != nil {
		return nil, nil, fmt.Errorf("Table 4: %w", err)
	}
	t := &Table{
		Number:      4,
		Title:       "Shapley decomposition of duplicates",
		Caption:     "Shapley decomposition of McFadden's pseudo-R² of duplicates over factor groups. \"Pooled\" is the preregistered analysis over committed faults and redelivery; the other columns split it into faults that an immediate read-back resolves (lost acknowledgement, misleading 500, partial batch) and faults it cannot resolve (late commit, redelivery). Top: E1 and E1s (minimal scaffold). Bottom: E3 (harnesses; native contract, no guard).",
		LabelHeader: []string{"Block", "Factor"},
		Columns: []Column{
			{Key: "pooled", Label: "pooled (prereg.)"},
			{Key: "resolves", Label: "read-back resolves"},
			{Key: "cannot", Label: "read-back cannot"},
		},
	}
	splits := []func(row) bool{
		committedOrRedelivery,
		func(e row) bool { return e.FaultFired() && in(e.FaultMode(), resolvesModes...) },
		func(e row) bool { return e.FaultFired() && in(e.FaultMode(), cannotModes...) },
	}
	blocks := []struct {
		key   string
		scope func(row) bool
		fs    []factor
	}{
		{"E1", expIn("E1", "E1s"), []factor{factorContract, factorMode, factorModel}},
		// "Native" as in Table 8: the native contract without the guard.
		{"E3", func(e row) bool {
			return e.Experiment() == "E3" && e.Contract() == ledger.ContractNative && e.Condition() == "vanilla"
		}, []factor{factorContract, factorHarness, factorMode, factorModel}},
	}
	if boot != nil {
		for j := range t.Columns {
			t.Columns[j].ShowCI = true
		}
		t.Caption += " Shares carry " + boot.what() + "."
	}
	out := map[string]shapleyResult{}
	for _, b := range blocks {
		base := len(t.Rows)
		var keys []string
		var labels [][]string
		for _, f := range b.fs {
			keys = append(keys, b.key+"/"+f.key)
			labels = append(labels, []string{b.key, f.label + " share (%)"})
		}
		keys = append(keys, b.key+"/total", b.key+"/dup", b.key+"/episodes")
		labels = append(labels, []string{b.key, "total pseudo-R²"}, []string{b.key, "duplicate rate (%)"}, []string{b.key, "episodes"})
		t.Rows = append(t.Rows, newRows(keys, labels, len(t.Columns))...)
		for j, split := range splits {
			eps := h.filter(func(e row) bool { return b.scope(e) && split(e) })
			r, err := decompose(eps, b.fs, boot)
			if err != nil {
				t.warnf("%s %s: %v", b.key, t.Columns[j].Key, err)
			}
			for _, w := range r.Warnings {
				t.warnf("%s %s: %s", b.key, t.Columns[j].Key, w)
			}
			out[b.key+"/"+t.Columns[j].Key] = r
			for i := range b.fs {
				c := numCell(Percent, r.Shares[i], 0)
				c.N = r.Episodes
				if r.Boot != nil {
					c = boot.cell(c, r.Boot[i], 1) // a share is in percent already
				}
				t.Rows[base+i].Cells[j] = c
			}
			k := base + len(b.fs)
			t.Rows[k].Cells[j] = numCell(Number, r.Total, 2)
			t.Rows[k].Cells[j].N = r.Episodes
			t.Rows[k+1].Cells[j] = numCell(Percent, r.DupRate, 0)
			t.Rows[k+1].Cells[j].N = r.Episodes
			t.Rows[k+2].Cells[j] = countCell(r.Episodes)
		}
	}
	return t, out, nil
}
