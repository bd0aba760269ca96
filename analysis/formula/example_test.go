package formula_test

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

func ExampleParse() {
	f, err := formula.Parse("duplicated ~ contract*C(instance) + (1 + delay_s | model)")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Response, f.Terms, f.Random, f.Intercept)
	_, err = formula.Parse("duplicated ~ contract:(1|model)")
	fmt.Println(err)
	// Output:
	// duplicated [contract C(instance) contract:C(instance)] [(1 + delay_s | model)] true
	// formula "duplicated ~ contract:(1|model)": at offset 22: a random term must be added on its own with '+', not combined with other terms
}

func ExampleParseWhere() {
	w, err := formula.ParseWhere(`fault_fired && condition in ("vanilla", "aware")`)
	if err != nil {
		fmt.Println(err)
		return
	}
	ep := &ledger.Episode{FaultFired: true, Condition: "aware"}
	keep, err := w.Keep(ep)
	fmt.Println(w.Columns(), keep, err)
	// Output:
	// [fault_fired condition] true <nil>
}

func ExampleBuild() {
	f, _ := formula.Parse("eos ~ contract + delay_s")
	b := frame.NewBuilder(frame.Spec{Columns: []string{"contract", "delay_s"}, Outcome: "eos", Collapse: true})
	for _, ep := range []*ledger.Episode{
		{Contract: "native", DelayS: 90, EOS: false, TaskSuccess: true},
		{Contract: "keys-everywhere", DelayS: 0, EOS: true, TaskSuccess: true},
		{Contract: "native", DelayS: 90, EOS: true, TaskSuccess: true},
	} {
		if err := b.Add(ep); err != nil {
			fmt.Println(err)
			return
		}
	}
	fr := b.Frame()
	d, err := formula.Build(f, fr, formula.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Names)
	for i := range fr.Len() {
		fmt.Println(d.X.RawRowView(i), fr.Cells[i].N, fr.Cells[i].Events)
	}
	// Output:
	// [(Intercept) contract[native] delay_s]
	// [1 1 90] 2 1
	// [1 0 0] 1 1
}
