package design

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// paperInterval is a 95% interval of the paper, in percent.
type paperInterval struct{ lo, hi float64 }

// Table 3 of the paper (E1; Wilson on Kish effective sizes): per model,
// resolvable dup, late dup, redelivery dup, TS (not executed), EOS.
var table3 = map[string][5]paperInterval{
	"gpt-6-astra":      {{0, 9}, {13, 42}, {57, 86}, {91, 100}, {66, 89}},
	"gpt-6-sol":        {{0, 9}, {30, 63}, {57, 86}, {89, 100}, {63, 87}},
	"gpt-5.6-sol":      {{0, 10}, {48, 79}, {57, 86}, {88, 100}, {61, 85}},
	"claude-opus-5.5":  {{0, 9}, {51, 82}, {57, 86}, {91, 100}, {58, 83}},
	"gemini-3.8-flash": {{6, 29}, {42, 75}, {57, 86}, {91, 100}, {54, 80}},
}

// Table 8 of the paper (E3): committed, late, redelivery dup (native), EOS
// native, EOS guard.
var table8 = map[string][5]paperInterval{
	"minimal/gpt-6-sol":        {{0, 7}, {21, 57}, {55, 88}, {69, 83}, {63, 79}},
	"minimal/gpt-5.6-sol":      {{0, 7}, {47, 82}, {55, 88}, {62, 78}, {64, 80}},
	"minimal/claude-opus-5.5":  {{0, 7}, {43, 79}, {55, 88}, {64, 80}, {64, 80}},
	"minimal/gemini-3.8-flash": {{6, 24}, {39, 76}, {55, 88}, {60, 76}, {62, 78}},
	"copilot/gpt-5.6-sol":      {{0, 11}, {51, 85}, {55, 88}, {62, 78}, {62, 78}},
}

// acc counts k hits in n episodes.
type acc struct{ n, k int }

func (a *acc) add(hit bool) {
	a.n++
	if hit {
		a.k++
	}
}

// TestCalibration regenerates the paper design (seed 1) and checks that
// every cell of Tables 3 and 8 lands inside the paper's 95% interval
// (rounded to whole percent as printed). The behavioural cells depend on
// the profile file; the mechanical ones (redelivery) on the task data. The
// other headline tables are logged (go test -v -run Calibration).
func TestCalibration(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("regenerates the whole paper design")
	}
	var out strings.Builder
	defer func() { t.Log("\n" + out.String()) }()
	sim := paperSim(t, nil)
	eps := graded(t, sim, func(*Episode) bool { return true })
	pct := func(a, b int) string { return fmt.Sprintf("%5.1f (%d/%d)", 100*float64(a)/float64(max(b, 1)), a, b) }
	get := func(m map[string]*acc, k string) *acc {
		if m[k] == nil {
			m[k] = &acc{}
		}
		return m[k]
	}
	// Table 3
	t3 := map[string]*acc{}
	for i := range eps {
		e := &eps[i]
		if e.Experiment != "E1" && e.Experiment != "E1s" {
			continue
		}
		m := e.Model
		switch e.FaultMode {
		case ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch:
			get(t3, m+"/res").add(e.Duplicated)
		case ledger.FaultTimeoutLate:
			get(t3, m+"/late").add(e.Duplicated)
		case ledger.FaultRedelivery:
			get(t3, m+"/red").add(e.Duplicated)
		case ledger.FaultTimeoutPre, ledger.FaultHTTP500Pre:
			get(t3, m+"/ts").add(e.TaskSuccess)
		}
		if e.Experiment == "E1" && e.FaultMode != ledger.FaultNone {
			get(t3, m+"/eos").add(e.EOS)
		}
	}
	fmt.Fprintln(&out, "Table 3 (E1+E1s): model res late red ts eos")
	for _, m := range []string{"gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash", "mai-code-1.1-flash", "gpt-4.1", "unnamed-8"} {
		fmt.Fprintf(&out, "%-20s", m)
		for _, c := range []string{"res", "late", "red", "ts", "eos"} {
			a := get(t3, m+"/"+c)
			fmt.Fprintf(&out, " %s", pct(a.k, a.n))
		}
		fmt.Fprintln(&out)
	}
	within := func(what string, k, n int, iv paperInterval) {
		p := math.Round(100 * float64(k) / float64(n))
		if n == 0 || p < iv.lo || p > iv.hi {
			t.Errorf("%s: %d/%d = %.0f%%, outside the paper's [%v, %v]", what, k, n, p, iv.lo, iv.hi)
		}
	}
	for m, ivs := range table3 {
		for j, c := range []string{"res", "late", "red", "ts", "eos"} {
			a := get(t3, m+"/"+c)
			within("Table 3 "+m+" "+c, a.k, a.n, ivs[j])
		}
	}
	// Table 4 pooled E1+E1s
	var pr, pc acc
	for i := range eps {
		e := &eps[i]
		if e.Experiment != "E1" && e.Experiment != "E1s" {
			continue
		}
		switch e.FaultMode {
		case ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch:
			pr.add(e.Duplicated)
		case ledger.FaultTimeoutLate, ledger.FaultRedelivery:
			pc.add(e.Duplicated)
		}
	}
	fmt.Fprintf(&out, "Table 4 E1: resolves %s cannot %s pooled %s\n", pct(pr.k, pr.n), pct(pc.k, pc.n), pct(pr.k+pc.k, pr.n+pc.n))
	// Table 5
	fmt.Fprintln(&out, "Table 5 (E2/E2k): contract cond t_post 500_post late partial red | all-faulted dup")
	for _, ct := range []string{"native", "keys-everywhere"} {
		for _, cd := range []string{"vanilla", "guard"} {
			fmt.Fprintf(&out, "%-16s %-8s", ct, cd)
			all := acc{}
			for _, md := range []string{ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultTimeoutLate, ledger.FaultPartialBatch, ledger.FaultRedelivery} {
				a := acc{}
				for i := range eps {
					e := &eps[i]
					if (e.Experiment == "E2" || e.Experiment == "E2k") && e.Contract == ct && e.Condition == cd && e.FaultMode == md {
						a.add(e.Duplicated)
					}
				}
				fmt.Fprintf(&out, " %s", pct(a.k, a.n))
			}
			for i := range eps {
				e := &eps[i]
				if (e.Experiment == "E2" || e.Experiment == "E2k") && e.Contract == ct && e.Condition == cd && e.FaultMode != ledger.FaultNone {
					all.add(e.Duplicated)
				}
			}
			fmt.Fprintf(&out, " | %s\n", pct(all.k, all.n))
		}
	}
	// Table 6
	fmt.Fprintln(&out, "Table 6: cond  EOS dup time(min)")
	row := func(label string, sel func(e *ledger.Episode) bool) {
		var a, d acc
		var tm float64
		for i := range eps {
			e := &eps[i]
			if !sel(e) {
				continue
			}
			a.add(e.EOS)
			d.add(e.Duplicated)
			tm += e.AgentTimeS
		}
		fmt.Fprintf(&out, "%-28s %s %s %.2f\n", label, pct(a.k, a.n), pct(d.k, d.n), tm/float64(max(a.n, 1))/60)
	}
	for _, cd := range []string{"vanilla", "guard", "state-oracle", "outcome-oracle"} {
		row("fixed "+cd, func(e *ledger.Episode) bool {
			return e.Experiment == "E2" && e.Condition == cd && e.FaultMode == ledger.FaultTimeoutLate
		})
	}
	row("fixed keys", func(e *ledger.Episode) bool {
		return e.Experiment == "E2k" && e.Condition == "vanilla" && e.FaultMode == ledger.FaultTimeoutLate
	})
	for _, cd := range []string{"wait-0", "wait-60", "wait-120", "wait-300"} {
		row("fixed "+cd, func(e *ledger.Episode) bool {
			return e.Experiment == "E5" && e.Condition == cd && e.FaultMode == ledger.FaultTimeoutLate
		})
	}
	for _, cd := range []string{"vanilla", "guard", "state-oracle", "outcome-oracle", "wait-0", "wait-60", "wait-300", "wait-3600"} {
		row("tail "+cd, func(e *ledger.Episode) bool {
			return e.Experiment == "E5" && e.Condition == cd && e.Contract == "native" && e.FaultMode == ledger.FaultTimeoutLateTail
		})
	}
	row("tail keys", func(e *ledger.Episode) bool {
		return e.Experiment == "E5" && e.Contract == "keys-everywhere" && e.FaultMode == ledger.FaultTimeoutLateTail
	})
	// Table 7
	conds := []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr", "guard", "state-oracle", "outcome-oracle"}
	fmt.Fprintln(&out, "Table 7 EOS (E2 faulted):", conds)
	for _, m := range []string{"gpt-6-sol", "claude-opus-5.5", "gemini-3.8-flash", "mai-code-1.1-flash"} {
		fmt.Fprintf(&out, "%-20s", m)
		for _, cd := range conds {
			a := acc{}
			for i := range eps {
				e := &eps[i]
				if e.Experiment == "E2" && e.Model == m && e.Condition == cd && e.FaultMode != ledger.FaultNone {
					a.add(e.EOS)
				}
			}
			fmt.Fprintf(&out, " %5.1f", 100*float64(a.k)/float64(a.n))
		}
		fmt.Fprintln(&out)
	}
	// Table 13 discordance
	type key struct{ cond, pk string }
	eosBy := map[key]bool{}
	for i := range eps {
		e := &eps[i]
		if e.Experiment == "E2" && e.FaultMode != ledger.FaultNone {
			eosBy[key{e.Condition, e.PairKey}] = e.EOS
		}
	}
	fmt.Fprintln(&out, "Table 13: guard vs X: b c gain")
	for _, cd := range []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr"} {
		b, c, n := 0, 0, 0
		for k, g := range eosBy {
			if k.cond != "guard" {
				continue
			}
			x, ok := eosBy[key{cd, k.pk}]
			if !ok {
				continue
			}
			n++
			if g && !x {
				b++
			}
			if !g && x {
				c++
			}
		}
		fmt.Fprintf(&out, "%-10s b=%d c=%d n=%d gain=%.1f\n", cd, b, c, n, 100*float64(b-c)/float64(n))
	}
	// Table 10 cue
	fmt.Fprintln(&out, "Table 10 (E6 plain vs E1 inst-0 default, 6 models)")
	e6 := []string{"gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash", "mai-code-1.1-flash"}
	for _, cue := range []string{"default", "plain"} {
		var res, late, red, ts, none acc
		for i := range eps {
			e := &eps[i]
			if !slices.Contains(e6, e.Model) || e.Instance != 0 || e.Cue != cue || (e.Experiment != "E1" && e.Experiment != "E6") {
				continue
			}
			switch e.FaultMode {
			case ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch:
				res.add(e.Duplicated)
			case ledger.FaultTimeoutLate:
				late.add(e.Duplicated)
			case ledger.FaultRedelivery:
				red.add(e.Duplicated)
			case ledger.FaultTimeoutPre:
				ts.add(e.TaskSuccess)
			case ledger.FaultNone:
				none.add(e.EOS)
			}
		}
		fmt.Fprintf(&out, "%-8s ts %s res %s late %s red %s none %s\n", cue, pct(ts.k, ts.n), pct(res.k, res.n), pct(late.k, late.n), pct(red.k, red.n), pct(none.k, none.n))
	}
	// H5
	var dupN, compl, silent int
	for i := range eps {
		e := &eps[i]
		if e.Duplicated {
			dupN++
			if e.ReportedSuccess {
				compl++
				if !e.UncertaintyListed {
					silent++
				}
			}
		}
	}
	fmt.Fprintf(&out, "H5: dup episodes %d, completed %s, silent %s\n", dupN, pct(compl, dupN), pct(silent, dupN))
	// E3 table 8
	fmt.Fprintln(&out, "Table 8 (E3 native vanilla): committed late red EOSnative EOSguard")
	for _, cell := range []string{"minimal/gpt-6-sol", "minimal/gpt-5.6-sol", "minimal/claude-opus-5.5", "minimal/gemini-3.8-flash", "copilot/gpt-5.6-sol", "hermes/gpt-5.6-sol", "codex/gpt-5.6-sol"} {
		var com, late, red, en, eg acc
		for i := range eps {
			e := &eps[i]
			if e.Experiment != "E3" || e.Harness+"/"+e.Model != cell {
				continue
			}
			if e.Condition == "guard" {
				eg.add(e.EOS)
				continue
			}
			en.add(e.EOS)
			switch e.FaultMode {
			case ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch:
				com.add(e.Duplicated)
			case ledger.FaultTimeoutLate:
				late.add(e.Duplicated)
			case ledger.FaultRedelivery:
				red.add(e.Duplicated)
			}
		}
		fmt.Fprintf(&out, "%-26s %s %s %s %s %s\n", cell, pct(com.k, com.n), pct(late.k, late.n), pct(red.k, red.n), pct(en.k, en.n), pct(eg.k, eg.n))
		if ivs, ok := table8[cell]; ok {
			for j, a := range []acc{com, late, red, en, eg} {
				within(fmt.Sprintf("Table 8 %s col %d", cell, j), a.k, a.n, ivs[j])
			}
		}
	}

	fmt.Fprintln(&out, "Table 9 (gpt-5.6-sol, committed+redelivery dup): harness nv ng kv kg | EOS kg")
	for _, h := range []string{"minimal", "copilot", "hermes", "codex"} {
		fmt.Fprintf(&out, "%-8s", h)
		for _, cc := range [][2]string{{"native", "vanilla"}, {"native", "guard"}, {"keys-everywhere", "vanilla"}, {"keys-everywhere", "guard"}} {
			a := acc{}
			for i := range eps {
				e := &eps[i]
				if (e.Experiment == "E3" || e.Experiment == "E3k") && e.Model == "gpt-5.6-sol" && e.Harness == h && e.Contract == cc[0] && e.Condition == cc[1] &&
					slices.Contains([]string{ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch, ledger.FaultTimeoutLate, ledger.FaultRedelivery}, e.FaultMode) {
					a.add(e.Duplicated)
				}
			}
			fmt.Fprintf(&out, " %s", pct(a.k, a.n))
		}
		a := acc{}
		for i := range eps {
			e := &eps[i]
			if e.Experiment == "E3k" && e.Model == "gpt-5.6-sol" && e.Harness == h && e.Condition == "guard" {
				a.add(e.EOS)
			}
		}
		fmt.Fprintf(&out, " | %s\n", pct(a.k, a.n))
	}
}
