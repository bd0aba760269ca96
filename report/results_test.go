package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/ledger"
)

func TestTextCell(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "NA"},
		{math.NaN(), "NA"},
		{0.0, "0"},
		{0.123456, "0.1235"},
		{-2.5e-5, "-2.500e-05"}, // scientific below 1e-4
		{12345.678, "12345.7"},  // one decimal from 1e4
		{1.0 / 3, "0.3333"},
		{P(0.0312), "0.031"},
		{P(2e-7), "2.0e-7"},
		{P(math.NaN()), "NA"},
		{PP(-0.04), "+0.0"},
		{PP(12.34), "+12.3"},
		{PP(-3.25), "-3.2"},
		{PP(math.NaN()), "NA"},
		{3, "3"},
		{int64(-7), "-7"},
		{true, "true"},
		{"a|b", "a|b"},
		{[]int{1}, "[1]"},
	} {
		if got := TextCell(tc.v, 4); got != tc.want {
			t.Errorf("TextCell(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestCSVCell(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, ""},
		{math.NaN(), ""},
		{math.Inf(1), ""},
		{0.1234567890123, "0.1234567890123"},
		{P(2e-7), "2e-07"},
		{P(math.NaN()), ""},
		{PP(-0.04), "-0.04"},
		{42, "42"},
		{int64(1) << 40, "1099511627776"},
		{false, "false"},
		{"x,y", "x,y"},
	} {
		if got := CSVCell(tc.v); got != tc.want {
			t.Errorf("CSVCell(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// testGrid mixes text, numbers and undefined cells, with LaTeX and
// Markdown specials.
func testGrid() *Grid {
	g := &Grid{Header: []string{"arm_name", "n", "p|q", "gain"}}
	g.Add("a & b", 12, 0.5, PP(3.14159))
	g.Add("c_%", int64(3), math.NaN(), nil)
	return g
}

func TestGridFormats(t *testing.T) {
	g := testGrid()
	var b bytes.Buffer
	if err := g.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// Text left-aligned (the last column unpadded), numbers right-aligned.
	wantText := "arm_name   n  p|q  gain\n" +
		"a & b     12  0.5  +3.1\n" +
		"c_%        3   NA    NA\n"
	if b.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), wantText)
	}
	b.Reset()
	if err := g.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "arm_name,n,p|q,gain\na & b,12,0.5,3.14159\nc_%,3,,\n"; b.String() != want {
		t.Errorf("csv:\n%q\nwant\n%q", b.String(), want)
	}
	var sb strings.Builder
	g.writeMarkdown(&sb)
	wantMD := "| arm_name | n | p\\|q | gain |\n| :-- | --: | --: | --: |\n| a & b | 12 | 0.5 | +3.1 |\n| c_% | 3 | NA | NA |\n"
	if sb.String() != wantMD {
		t.Errorf("md:\n%s\nwant:\n%s", sb.String(), wantMD)
	}
	sb.Reset()
	g.writeLaTeX(&sb)
	wantTeX := "\\begin{tabular}{lrrr}\n\\toprule\narm\\_name & n & p|q & gain \\\\\n\\midrule\na \\& b & 12 & 0.5 & +3.1 \\\\\nc\\_\\% & 3 & NA & NA \\\\\n\\bottomrule\n\\end{tabular}\n"
	if sb.String() != wantTeX {
		t.Errorf("latex:\n%s\nwant:\n%s", sb.String(), wantTeX)
	}
	// The header is escaped in a copy: the grid itself is unchanged.
	if g.Header[0] != "arm_name" {
		t.Errorf("writeLaTeX changed the header: %q", g.Header[0])
	}
	// Digits sets the significant digits of floats.
	g2 := &Grid{Header: []string{"x"}, Digits: 2}
	g2.Add(1.0 / 3)
	b.Reset()
	g2.WriteText(&b)
	if b.String() != "   x\n0.33\n" {
		t.Errorf("2 digits: %q", b.String())
	}
}

func TestOutputWrite(t *testing.T) {
	g := testGrid()
	o := &Output{
		Value:    map[string]any{"p": jnum(math.NaN()), "name": "<x>"},
		CSV:      g,
		Title:    []string{"rate | by arm", "second"},
		Tables:   []*Grid{g, {Header: []string{"k"}, Rows: [][]any{{"v"}}}},
		Warnings: []string{"few\nrows"},
	}
	render := func(f string) string {
		t.Helper()
		var b bytes.Buffer
		if err := o.Write(&b, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	if got, want := render("json"), "{\n  \"name\": \"<x>\",\n  \"p\": null\n}\n"; got != want {
		t.Errorf("json: %q, want %q", got, want)
	}
	if got := render("csv"); !strings.HasPrefix(got, "arm_name,n,p|q,gain\n") {
		t.Errorf("csv: %q", got)
	}
	md := render("md")
	if !strings.HasPrefix(md, "rate \\| by arm\nsecond\n\n| arm_name |") || !strings.Contains(md, "\n\n| k |\n| :-- |\n| v |\n") || !strings.HasSuffix(md, "\nWarnings:\n\n- few\nrows\n") {
		t.Errorf("md:\n%s", md)
	}
	tex := render("latex")
	if !strings.HasPrefix(tex, "% rate | by arm\n% second\n\\begin{tabular}{lrrr}") || !strings.HasSuffix(tex, "\\end{tabular}\n% warning: few rows\n") || strings.Count(tex, "\\begin{tabular}") != 2 {
		t.Errorf("latex:\n%s", tex)
	}
	txt := render("text")
	if !strings.HasPrefix(txt, "rate | by arm\nsecond\narm_name") || !strings.HasSuffix(txt, "NA\n\nk\nv\n") || strings.Contains(txt, "few") {
		t.Errorf("text (tables separated by a blank line, warnings left to the caller):\n%s", txt)
	}
}

// The results of the analysis commands, as built by hand so that every
// branch of their layouts (clusters, paired TOST, the three model
// families) is reached without fitting anything.
func testResults() map[string]*Output {
	nan := math.NaN()
	rates := &analysis.RatesResult{
		Spec:  analysis.RatesSpec{Outcome: "duplicated", By: []string{"model", "verified", "n_calls"}, Cluster: "template"},
		Kinds: []ledger.Kind{ledger.KindString, ledger.KindBool, ledger.KindInt},
		Rows: []analysis.RateRow{
			{Levels: []string{"m1", "true", "3"}, N: 40, Events: 10, P: 0.25, NEff: 31.5, Lo: 0.14, Hi: 0.41},
			{Levels: []string{"m2", "false", ""}, N: 0, Events: 0, P: nan, NEff: nan, Lo: nan, Hi: nan},
		},
		ICC:      0.0625,
		Warnings: []analysis.Warning{{Code: analysis.WarnUndefined, Msg: "m2: no rows"}},
	}
	ratesAll := &analysis.RatesResult{
		Spec: analysis.RatesSpec{Outcome: "duplicated"},
		Rows: []analysis.RateRow{{N: 100, Events: 7, P: 0.07, NEff: 100, Lo: 0.034, Hi: 0.138}},
		ICC:  nan,
	}
	paired := &analysis.PairedResult{
		Spec: analysis.PairedSpec{Outcome: "duplicated", Arm: "condition", Base: "native", Test: "exact", Adjust: "holm"},
		Comparisons: []analysis.PairedComparison{
			{Base: "native", Other: "keyed", Pairs: 50, B: 12, C: 2, GainPP: 20, P: 0.012939453125, PAdj: 0.02587890625,
				Log10P: math.Log10(0.012939453125), Log10PAdj: math.Log10(0.02587890625)},
			{Base: "native", Other: "none", Pairs: 0, GainPP: nan, P: nan, PAdj: nan, Log10P: nan, Log10PAdj: nan},
		},
		Warnings: []analysis.Warning{{Code: analysis.WarnNoPairs, Msg: "none: no pairs"}},
	}
	tost := &analysis.TOSTResult{
		Spec: analysis.TOSTSpec{Outcome: "reissued", Arm: "reversible", A: "false", B: "true", Margin: 0.05, PairedBy: []string{"pair_key"}},
		NA:   300, NB: 300, Pairs: 290, Diff: -0.021, Lo90: -0.056, Hi90: 0.014, Method: "paired-wald",
		PLower: 0.048, PUpper: 1.2e-5, PTOST: 0.048, Equivalent: true, NewcombeLo: -0.057, NewcombeHi: 0.015,
	}
	tostIndep := &analysis.TOSTResult{
		Spec: analysis.TOSTSpec{Outcome: "reissued", Arm: "reversible", A: "false", B: "true", Margin: 0.05},
		NA:   3, NB: 0, Diff: nan, Lo90: nan, Hi90: nan, Method: "agresti-caffo", PLower: nan, PUpper: nan, PTOST: nan,
		NewcombeLo: nan, NewcombeHi: nan, Warnings: []analysis.Warning{{Code: analysis.WarnUndefined, Msg: "b: no episodes"}},
	}
	coefs := []analysis.Coef{
		{Term: "(Intercept)", Estimate: -1.5, SE: 0.25, Z: -6, P: 1.97e-9, OR: 0.2231301601484298, ORLo: 0.1367, ORHi: 0.3642},
		{Term: "contract[keyed]", Estimate: 0.75, SE: 0.5, Z: 1.5, P: 0.1336, OR: 2.117, ORLo: 0.7946, ORHi: 5.641},
	}
	logit := &analysis.ModelResult{Spec: analysis.ModelSpec{Family: "logit"}, Formula: "duplicated ~ contract", N: 200, Converged: true,
		Coefficients: coefs, Alpha: nan, LogLik: -101.25}
	gee := &analysis.ModelResult{Spec: analysis.ModelSpec{Family: "gee", Corr: "exchangeable", Cov: "robust"}, Formula: "duplicated ~ contract",
		N: 200, Converged: true, Coefficients: coefs, Alpha: 0.031, LogLik: nan, Clusters: 5, Warnings: []analysis.Warning{{Code: analysis.WarnFewClusters, Field: "Cov", Msg: "only 5 clusters"}}}
	glmm := &analysis.ModelResult{Spec: analysis.ModelSpec{Family: "glmm"}, Formula: "duplicated ~ contract + (1|template)", N: 200,
		Converged: false, Coefficients: coefs, Alpha: nan, LogLik: -99.875, Singular: true,
		Random: []analysis.RandomEffect{{Group: "template", SD: 0, Levels: 5}}}
	shap := &analysis.ShapleyDecomposition{
		Spec: analysis.ShapleySpec{R2: "mcfadden"}, Formula: "duplicated ~ contract + model", N: 400, Total: 0.2,
		Terms: []analysis.ShapleyTerm{
			{Name: "contract", Value: 0.05, Share: 25, Conditional: []float64{0.06, 0.04}},
			{Name: "model", Value: 0.15, Share: 75, Conditional: []float64{0.16, nan}},
		},
	}
	return map[string]*Output{
		"rates": Rates(rates), "rates_all": Rates(ratesAll), "paired": Paired(paired),
		"tost_paired": TOST(tost), "tost_indep": TOST(tostIndep),
		"model_logit": Model(logit), "model_gee": Model(gee), "model_glmm": Model(glmm), "shapley": Shapley(shap),
	}
}

// TestResultGoldens pins every command result in every format.
func TestResultGoldens(t *testing.T) {
	for name, o := range testResults() {
		for _, f := range ResultFormats {
			var b bytes.Buffer
			if err := o.Write(&b, f); err != nil {
				t.Fatalf("%s %s: %v", name, f, err)
			}
			if f == "json" && !json.Valid(b.Bytes()) {
				t.Errorf("%s: invalid JSON:\n%s", name, b.String())
			}
			if f == "csv" {
				if _, err := csv.NewReader(&b).ReadAll(); err != nil {
					t.Errorf("%s: CSV: %v", name, err)
				}
				b.Reset()
				o.Write(&b, f)
			}
			checkGolden(t, filepath.Join("results", name+"."+Ext(f)), b.Bytes())
		}
	}
}

// TestResultLayouts asserts the cells the goldens hold that matter most:
// typed group levels and nulls in JSON, empty cells in CSV, the ICC and
// model statistics in the titles, the extra CSV rows of GEE and GLMM, and
// Shapley's order for people.
func TestResultLayouts(t *testing.T) {
	rs := testResults()
	out := func(name, f string) string {
		t.Helper()
		var b bytes.Buffer
		if err := rs[name].Write(&b, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	contains := func(name, f string, want ...string) {
		t.Helper()
		s := out(name, f)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s %s lacks %q:\n%s", name, f, w, s)
			}
		}
	}
	// A bool or int level is a JSON bool or number; a string, or an empty
	// level of an int column, stays a string.
	contains("rates", "json", `"model": "m1",`, `"verified": true,`, `"n_calls": 3`, `"n_calls": ""`, `"p": null`, `"icc": 0.0625`)
	contains("rates", "csv", "model,verified,n_calls,n,events,p,n_eff,lo,hi,icc\n", "m1,true,3,40,10,0.25,31.5,0.14,0.41,0.0625\n", "m2,false,,0,0,,,,,0.0625\n")
	contains("rates", "text", "ICC (template) = 0.0625\n")
	contains("rates_all", "csv", "group,n,events,p,n_eff,lo,hi\nall,100,7,0.07,100,0.034,0.138\n")
	contains("rates_all", "json", `"group": {}`, `"icc": null`)
	contains("paired", "text", "duplicated: native vs each other condition, McNemar exact, holm adjustment\n", "+20.0", "0.013", "0.026")
	contains("paired", "csv", "native,keyed,50,12,2,20,0.012939453125,0.02587890625,-1.888084078366985,-1.587054082703004\n", "native,none,0,0,0,,,,,\n")
	contains("paired", "md", "\nWarnings:\n\n- none: no pairs\n")
	contains("tost_paired", "json", `"pairs": 290`, `"ci90": [`, `"equivalent": true`)
	contains("tost_paired", "text", "reissued: reversible = false vs true, margin ±0.05\n", "field                value\n", "p_upper             1.2e-5\n", "method         paired-wald\n")
	if s := out("tost_indep", "json"); strings.Contains(s, `"pairs"`) || !strings.Contains(s, `"diff": null`) {
		t.Errorf("independent TOST has pairs or a non-null diff:\n%s", s)
	}
	contains("model_logit", "text", "logit: duplicated ~ contract\nn = 200, converged = true, loglik = -101.25\n")
	contains("model_logit", "json", `"loglik": -101.25`)
	if s := out("model_gee", "json"); strings.Contains(s, "loglik") || !strings.Contains(s, `"alpha": 0.031`) || !strings.Contains(s, `"clusters": 5`) {
		t.Errorf("gee json:\n%s", s)
	}
	contains("model_gee", "text", "clusters = 5, alpha = 0.031 (exchangeable, robust SE)")
	contains("model_gee", "csv", "\nalpha,0.031,,,,,,\n")
	contains("model_glmm", "csv", "\nsd(1|template),0,,,,,,\n")
	contains("model_glmm", "text", "singular = true", "group     sd  levels\ntemplate   0       5\n")
	contains("model_glmm", "json", `"singular": true`, `"random": [`)
	// People read the largest share first, then the total; CSV keeps the
	// formula's order.
	contains("shapley", "text", "name      value  share\nmodel      0.15     75\ncontract   0.05     25\ntotal       0.2    100\n")
	contains("shapley", "csv", "name,value,share\ncontract,0.05,25\nmodel,0.15,75\n")
	contains("shapley", "json", `"conditional": [`, "null")
}
