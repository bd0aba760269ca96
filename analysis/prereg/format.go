package prereg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// FormatVersion is the only value of the top-level `prereg` key this
// package reads.
const FormatVersion = 1

// File is a parsed and validated preregistration.
type File struct {
	Path       string // as given to Parse, for messages
	SHA256     string // of the bytes parsed
	Title      string
	Alpha      float64 // default α of every rule
	Derive     []*Derived
	Families   []*Family
	Hypotheses []*Hypothesis
}

// Derived is a boolean column computed from a where expression, so that
// outcomes, exposures and arms need not exist in the ledger.
type Derived struct {
	Name, Where string
	Line        int
	WhereLine   int // of the where key, for messages about the expression
	expr        *formula.Where
}

// Family is a multiplicity family: the p-values of every test that names
// it are adjusted together.
type Family struct {
	ID     string
	Adjust Adjust
	Line   int
}

// Analysis roles of a hypothesis.
const (
	Primary     Analysis = "primary"
	Sensitivity Analysis = "sensitivity"
)

// Hypothesis is one preregistered hypothesis: a population, one or more
// parts (each an estimand with its decision rule) and how the parts'
// verdicts combine.
type Hypothesis struct {
	ID, Statement string
	Analysis      Analysis // primary or sensitivity
	SensitivityOf string   // the primary hypothesis a sensitivity analysis accompanies
	Population    string   // where expression
	Outcome       string
	Combine       Combine // all (default) or partial
	Parts         []*Part
	Line          int
	PopLine       int // of the population key, for messages about the expression
}

// Part is one estimand with its rule. A part without a rule is reported
// but does not enter the verdict.
type Part struct {
	Name            string
	Population      string // and-ed with the hypothesis's
	Outcome         string // overrides the hypothesis's
	ForEach         string // evaluate per level of this column; all levels must hold
	Estimand        Estimand
	Rule            *Rule
	IfNotComputable IfNotComputable // fail (default) or not_supported
	Line            int
	PopLine         int // of the population key, for messages about the expression
}

// Estimand kinds.
const (
	KindRate        Kind = "rate"
	KindRateDiff    Kind = "rate_difference"
	KindMcNemar     Kind = "mcnemar"
	KindOddsRatio   Kind = "odds_ratio"
	KindCoefficient Kind = "coefficient"
	KindShapley     Kind = "shapley_share"
	KindTOST        Kind = "tost"
)

const defaultAlpha = 0.05

// Estimand is what a part estimates and the test behind it. Which fields
// apply depends on Kind (see docs/prereg.md).
type Estimand struct {
	Kind    Kind
	Weight  string  // rate, rate_difference: weight column
	Cluster string  // rate, rate_difference, tost: clusters for the design effect (n_eff)
	Level   float64 // rate, rate_difference: interval level (default 0.95)
	Arm     string  // rate_difference, mcnemar, tost: the column compared
	A, B    string  // rate_difference, tost: difference A − B; mcnemar: base A vs other B
	PairBy  []string
	Test    McNemarTest // mcnemar: exact, midp, chi2, chi2cc
	Family  string      // mcnemar, odds_ratio, coefficient: multiplicity family id
	// Spec is the engine's model of an odds_ratio or coefficient, as the
	// keys set it: fit (Fit), model (Family logit, gee or glmm: a
	// logistic model of before families, whose output it keeps) or
	// distribution (Family binomial, poisson or gaussian), link, formula,
	// group, corr, order, cov, reml (ML: reml false) and refs. An
	// odds_ratio's fit is the binomial logit model; a shapley_share reads
	// its Formula and Refs.
	Spec  analysis.ModelSpec
	Scale Scale  // coefficient: ratio (exp β) or difference (β); "" by the link
	Term  string // odds_ratio, coefficient: the coefficient; shapley_share: factor
	// Contrast, instead of Term, makes a coefficient the average contrast
	// on the response scale of a level against the reference level
	// (refs, or the first): "col[level]" (analysis.Contrast). Scale
	// difference (the default) is the average difference, in percentage
	// points for a binomial distribution; ratio the ratio of the
	// averages. RandomEffects is how a glmm's predictions treat the
	// random effects (zero, the default, or marginal).
	Contrast      string
	RandomEffects analysis.RandomEffects
	// Fallback is the GEE working correlation used when Corr cannot be
	// estimated (independence keeps robust standard errors valid).
	Fallback stats.Corr
	R2       R2         // shapley_share: mcfadden (default), nagelkerke, tjur, coxsnell
	Method   TOSTMethod // tost without pairing or cluster: agresti-caffo, wald, score
	Line     int
	hasREML  bool           // the reml key was given
	lines    map[string]int // of each key given, for messages
}

// Decision directions.
const (
	Above      Direction = "above"    // estimate > bound
	AtLeast    Direction = "at_least" // estimate ≥ bound
	Below      Direction = "below"
	AtMost     Direction = "at_most"
	Different  Direction = "different"  // two-sided test against the bound
	Equivalent Direction = "equivalent" // TOST: within ±margin
)

// Ways a rule reads its estimand.
const (
	UsePoint    Use = "point"    // the point estimate against the bound
	UseInterval Use = "interval" // the interval entirely on one side
	UseTest     Use = "test"     // the point on the predicted side and p < α
)

// Rule is a decision rule mapping an estimate to a verdict.
type Rule struct {
	Direction Direction
	Bound     float64 // NaN: the estimand's null (1 for ratios, 0 otherwise)
	CompareTo string  // shapley_share: another factor's share as the bound
	Use       Use
	Alpha     float64
	Margin    float64 // equivalent: ± margin, in the estimand's units
	// Sides is 2 (default: the two-sided p-value, read with the predicted
	// direction, as the paper does) or 1 (the one-sided p-value in the
	// predicted direction).
	Sides int
	Line  int
}

// Error is one problem in a preregistration file.
type Error struct {
	File string
	Line int
	Msg  string
	// Warning marks a problem that does not fail a check (CheckLedgerAll).
	Warning bool
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Warning {
		msg = "warning: " + msg
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

// ErrorList is every problem found in a file, in line order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Parse reads a preregistration from data (name is used in messages) and
// validates it. Every problem is reported as file:line: message in an
// ErrorList; the File is nil when there is any.
func Parse(name string, data []byte) (*File, error) {
	d := &decoder{file: name}
	f := d.parse(data)
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool { return d.errs[i].Line < d.errs[j].Line })
		return nil, d.errs
	}
	sum := sha256.Sum256(data)
	f.SHA256 = hex.EncodeToString(sum[:])
	return f, nil
}

type decoder struct {
	file string
	errs ErrorList
	// last is the line of the last node read: an empty node (a bare "-")
	// has no line of its own, so its errors take the nearest one.
	last int
}

func (d *decoder) line(n *yaml.Node) int {
	if n.Line > 0 {
		d.last = n.Line
		return n.Line
	}
	return max(d.last, 1)
}

func (d *decoder) errf(line int, format string, args ...any) {
	if line < 1 {
		line = max(d.last, 1)
	}
	if len(d.errs) < 100 {
		d.errs = append(d.errs, &Error{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// field is one key of a mapping: its handler receives the value node.
type fields map[string]func(v *yaml.Node)

// mapping calls the handler of each key of n, reporting unknown and
// repeated keys (with close matches) and a node that is not a mapping.
func (d *decoder) mapping(n *yaml.Node, what string, fs fields) bool {
	d.line(n)
	if n.Kind != yaml.MappingNode {
		d.errf(n.Line, "%s: want a mapping of keys, found %s", what, describe(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errf(k.Line, "%s: a key must be a plain name", what)
			continue
		}
		if seen[k.Value] {
			d.errf(k.Line, "%s: key %q given twice", what, k.Value)
			continue
		}
		seen[k.Value] = true
		h, ok := fs[k.Value]
		if !ok {
			msg := fmt.Sprintf("%s: unknown key %q", what, k.Value)
			if s := frame.Similar(k.Value, keysOf(fs)); len(s) > 0 {
				msg += " (did you mean " + strings.Join(s, ", ") + "?)"
			} else {
				msg += " (known: " + strings.Join(keysOf(fs), ", ") + ")"
			}
			d.errf(k.Line, "%s", msg)
			continue
		}
		h(v)
	}
	return true
}

func keysOf(fs fields) []string {
	ks := make([]string, 0, len(fs))
	for k := range fs {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (d *decoder) str(n *yaml.Node, what string, dst *string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errf(n.Line, "%s: want a string, found %s", what, describe(n))
		return
	}
	if i := strings.IndexFunc(n.Value, badControl); i >= 0 {
		d.errf(n.Line, "%s: control character %q at byte %d: write text without terminal escapes or other control characters", what, n.Value[i:i+utf8.RuneLen([]rune(n.Value[i:])[0])], i)
		return
	}
	if strings.HasSuffix(what, "id") && strings.ContainsAny(n.Value, "\n\t\r") {
		d.errf(n.Line, "%s %q: an id is one line without tabs", what, n.Value)
		return
	}
	*dst = n.Value
}

// badControl reports the control characters no string of a
// preregistration may hold: all but newline and tab (a multi-line
// statement), since they would reach a terminal, Markdown or CSV raw.
func badControl(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029')
}

func (d *decoder) num(n *yaml.Node, what string, dst *float64) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		d.errf(n.Line, "%s: want a number, found %s", what, describe(n))
		return
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.errf(n.Line, "%s: want a finite number, found %q", what, n.Value)
		return
	}
	*dst = v
}

// boolean reads a YAML boolean (true or false) and reports whether it did.
func (d *decoder) boolean(n *yaml.Node, what string, dst *bool) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		d.errf(n.Line, "%s: want true or false, found %s", what, describe(n))
		return false
	}
	v, err := strconv.ParseBool(strings.ToLower(n.Value))
	if err != nil {
		d.errf(n.Line, "%s: want true or false, found %q", what, n.Value)
		return false
	}
	*dst = v
	return true
}

func (d *decoder) strList(n *yaml.Node, what string, dst *[]string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		*dst = []string{n.Value}
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errf(n.Line, "%s: want a list of strings, found %s", what, describe(n))
		return
	}
	for _, c := range n.Content {
		var s string
		d.str(c, what, &s)
		*dst = append(*dst, s)
	}
}

func (d *decoder) strMap(n *yaml.Node, what string, dst *map[string]string) {
	if n.Kind != yaml.MappingNode {
		d.errf(n.Line, "%s: want a mapping of column: level, found %s", what, describe(n))
		return
	}
	*dst = map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var v string
		d.str(n.Content[i+1], what+"."+n.Content[i].Value, &v)
		(*dst)[n.Content[i].Value] = v
	}
}

func (d *decoder) list(n *yaml.Node, what string, each func(c *yaml.Node)) {
	if n.Kind != yaml.SequenceNode {
		d.errf(n.Line, "%s: want a list, found %s", what, describe(n))
		return
	}
	for _, c := range n.Content {
		each(c)
	}
}

func (d *decoder) parse(data []byte) *File {
	f := &File{Path: d.file, Alpha: math.NaN()}
	if len(bytes.TrimSpace(data)) == 0 {
		d.errf(1, "the file is empty (start from `limbo-analyze prereg init`)")
		return nil
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		d.errf(yamlLine(err), "YAML: %s", yamlMsg(err))
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errf(extra.Line, "a second YAML document: a preregistration is one document")
		return nil
	}
	if len(root.Content) == 0 {
		d.errf(1, "the file is empty")
		return nil
	}
	doc := root.Content[0]
	version := math.NaN()
	hasHyp := false
	d.mapping(doc, "top level", fields{
		"prereg": func(v *yaml.Node) {
			d.num(v, "prereg", &version)
			if !math.IsNaN(version) && version != FormatVersion {
				d.errf(v.Line, "prereg: format version %v is not supported (want %d)", version, FormatVersion)
			}
		},
		"title": func(v *yaml.Node) { d.str(v, "title", &f.Title) },
		"alpha": func(v *yaml.Node) { d.num(v, "alpha", &f.Alpha); d.checkAlpha(v.Line, "alpha", f.Alpha) },
		"derive": func(v *yaml.Node) {
			d.list(v, "derive", func(c *yaml.Node) {
				x := &Derived{Line: d.line(c)}
				d.mapping(c, "derive", fields{
					"name":  func(v *yaml.Node) { d.str(v, "derive.name", &x.Name) },
					"where": func(v *yaml.Node) { x.WhereLine = v.Line; d.str(v, "derive.where", &x.Where) },
				})
				f.Derive = append(f.Derive, x)
			})
		},
		"families": func(v *yaml.Node) {
			d.list(v, "families", func(c *yaml.Node) {
				x := &Family{Line: d.line(c)}
				d.mapping(c, "family", fields{
					"id":     func(v *yaml.Node) { d.str(v, "family.id", &x.ID) },
					"adjust": func(v *yaml.Node) { d.str(v, "family.adjust", (*string)(&x.Adjust)) },
				})
				f.Families = append(f.Families, x)
			})
		},
		"hypotheses": func(v *yaml.Node) {
			hasHyp = true
			d.list(v, "hypotheses", func(c *yaml.Node) { f.Hypotheses = append(f.Hypotheses, d.hypothesis(c)) })
		},
	})
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	if math.IsNaN(version) {
		d.errf(doc.Line, "missing key \"prereg\" (the format version, %d)", FormatVersion)
	}
	if !hasHyp || len(f.Hypotheses) == 0 {
		d.errf(doc.Line, "no hypotheses: a preregistration needs at least one")
	}
	if math.IsNaN(f.Alpha) {
		f.Alpha = defaultAlpha
	}
	d.validate(f)
	return f
}

func (d *decoder) checkAlpha(line int, what string, a float64) {
	if !math.IsNaN(a) && !(a > 0 && a < 0.5) {
		d.errf(line, "%s: %v is not a significance level in (0, 0.5)", what, a)
	}
}

// yamlLine extracts the line from a yaml error ("yaml: line 3: ...").
func yamlLine(err error) int {
	var te *yaml.TypeError
	s := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		s = te.Errors[0]
	}
	if i := strings.Index(s, "line "); i >= 0 {
		j := i + 5
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if n, err := strconv.Atoi(s[i+5 : j]); err == nil {
			return n
		}
	}
	return 1
}

func yamlMsg(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, "line "); i == 0 {
		if j := strings.Index(s, ": "); j > 0 {
			s = s[j+2:]
		}
	}
	return s
}

func (d *decoder) hypothesis(n *yaml.Node) *Hypothesis {
	h := &Hypothesis{Line: d.line(n), Analysis: Primary, Combine: CombineAll}
	single := &Part{Line: h.Line, IfNotComputable: IfNotComputableFail}
	var hasEstimand, hasRule bool
	d.mapping(n, "hypothesis", fields{
		"id":             func(v *yaml.Node) { d.str(v, "id", &h.ID) },
		"statement":      func(v *yaml.Node) { d.str(v, "statement", &h.Statement) },
		"analysis":       func(v *yaml.Node) { d.str(v, "analysis", (*string)(&h.Analysis)) },
		"sensitivity_of": func(v *yaml.Node) { d.str(v, "sensitivity_of", &h.SensitivityOf) },
		"population":     func(v *yaml.Node) { h.PopLine = v.Line; d.str(v, "population", &h.Population) },
		"outcome":        func(v *yaml.Node) { d.str(v, "outcome", &h.Outcome) },
		"combine":        func(v *yaml.Node) { d.str(v, "combine", (*string)(&h.Combine)) },
		"estimand":       func(v *yaml.Node) { hasEstimand = true; single.Estimand = d.estimand(v) },
		"rule":           func(v *yaml.Node) { hasRule = true; single.Rule = d.rule(v) },
		"parts": func(v *yaml.Node) {
			d.list(v, "parts", func(c *yaml.Node) { h.Parts = append(h.Parts, d.part(c)) })
			if len(h.Parts) == 0 {
				d.errf(v.Line, "hypothesis %s: parts is empty", h.ID)
			}
		},
	})
	switch {
	case (hasEstimand || hasRule) && h.Parts != nil:
		d.errf(n.Line, "hypothesis %s: give either estimand and rule, or parts, not both", h.ID)
	case hasEstimand:
		if !hasRule {
			d.errf(n.Line, "hypothesis %s: an estimand without a rule decides nothing (add rule, or use parts to report it beside a ruled part)", h.ID)
		}
		if single.Estimand.Line == 0 {
			single.Estimand.Line = h.Line
		}
		h.Parts = []*Part{single}
	case hasRule:
		d.errf(n.Line, "hypothesis %s: a rule without an estimand", h.ID)
	case h.Parts == nil && n.Kind == yaml.MappingNode:
		d.errf(n.Line, "hypothesis %s: no estimand (give estimand and rule, or parts)", h.ID)
	}
	return h
}

func (d *decoder) part(n *yaml.Node) *Part {
	p := &Part{Line: d.line(n), IfNotComputable: IfNotComputableFail}
	hasEstimand := false
	d.mapping(n, "part", fields{
		"name":              func(v *yaml.Node) { d.str(v, "name", &p.Name) },
		"population":        func(v *yaml.Node) { p.PopLine = v.Line; d.str(v, "population", &p.Population) },
		"outcome":           func(v *yaml.Node) { d.str(v, "outcome", &p.Outcome) },
		"for_each":          func(v *yaml.Node) { d.str(v, "for_each", &p.ForEach) },
		"if_not_computable": func(v *yaml.Node) { d.str(v, "if_not_computable", (*string)(&p.IfNotComputable)) },
		"estimand":          func(v *yaml.Node) { hasEstimand = true; p.Estimand = d.estimand(v) },
		"rule":              func(v *yaml.Node) { p.Rule = d.rule(v) },
	})
	if !hasEstimand && n.Kind == yaml.MappingNode {
		d.errf(p.Line, "part %q: no estimand", p.Name)
	}
	if p.Estimand.Line == 0 {
		p.Estimand.Line = p.Line
	}
	return p
}

func (d *decoder) estimand(n *yaml.Node) Estimand {
	e := Estimand{Line: d.line(n), Level: math.NaN(), lines: map[string]int{}}
	fs := fields{
		"kind":    func(v *yaml.Node) { d.str(v, "estimand.kind", (*string)(&e.Kind)) },
		"weight":  func(v *yaml.Node) { d.str(v, "estimand.weight", &e.Weight) },
		"cluster": func(v *yaml.Node) { d.str(v, "estimand.cluster", &e.Cluster) },
		"level":   func(v *yaml.Node) { d.num(v, "estimand.level", &e.Level) },
		"arm":     func(v *yaml.Node) { d.str(v, "estimand.arm", &e.Arm) },
		"a":       func(v *yaml.Node) { d.str(v, "estimand.a", &e.A) },
		"b":       func(v *yaml.Node) { d.str(v, "estimand.b", &e.B) },
		"pair_by": func(v *yaml.Node) { d.strList(v, "estimand.pair_by", &e.PairBy) },
		"test":    func(v *yaml.Node) { d.str(v, "estimand.test", (*string)(&e.Test)) },
		"family":  func(v *yaml.Node) { d.str(v, "estimand.family", &e.Family) },
		"model":   func(v *yaml.Node) { d.str(v, "estimand.model", (*string)(&e.Spec.Family)) },
		"fit":     func(v *yaml.Node) { d.str(v, "estimand.fit", (*string)(&e.Spec.Fit)) },
		"distribution": func(v *yaml.Node) {
			d.str(v, "estimand.distribution", (*string)(&e.Spec.Family))
		},
		"link":  func(v *yaml.Node) { d.str(v, "estimand.link", (*string)(&e.Spec.Link)) },
		"scale": func(v *yaml.Node) { d.str(v, "estimand.scale", (*string)(&e.Scale)) },
		"order": func(v *yaml.Node) { d.str(v, "estimand.order", &e.Spec.Order) },
		"cov":   func(v *yaml.Node) { d.str(v, "estimand.cov", (*string)(&e.Spec.Cov)) },
		"reml": func(v *yaml.Node) {
			reml := true
			if d.boolean(v, "estimand.reml", &reml) {
				e.hasREML, e.Spec.ML = true, !reml
			}
		},
		"formula":  func(v *yaml.Node) { d.str(v, "estimand.formula", &e.Spec.Formula) },
		"term":     func(v *yaml.Node) { d.str(v, "estimand.term", &e.Term) },
		"contrast": func(v *yaml.Node) { d.str(v, "estimand.contrast", &e.Contrast) },
		"random_effects": func(v *yaml.Node) {
			d.str(v, "estimand.random_effects", (*string)(&e.RandomEffects))
		},
		"group":    func(v *yaml.Node) { d.str(v, "estimand.group", &e.Spec.Group) },
		"corr":     func(v *yaml.Node) { d.str(v, "estimand.corr", (*string)(&e.Spec.Corr)) },
		"fallback": func(v *yaml.Node) { d.str(v, "estimand.fallback", (*string)(&e.Fallback)) },
		"refs":     func(v *yaml.Node) { d.strMap(v, "estimand.refs", &e.Spec.Refs) },
		"r2":       func(v *yaml.Node) { d.str(v, "estimand.r2", (*string)(&e.R2)) },
		"method":   func(v *yaml.Node) { d.str(v, "estimand.method", (*string)(&e.Method)) },
	}
	for k, h := range fs {
		fs[k] = func(v *yaml.Node) { e.lines[k] = v.Line; h(v) }
	}
	d.mapping(n, "estimand", fs)
	return e
}

// at is the line of the estimand's key, or the estimand's when the key
// is absent (or the estimand was built in code).
func (e *Estimand) at(key string) int {
	if l := e.lines[key]; l > 0 {
		return l
	}
	return e.Line
}

func (d *decoder) rule(n *yaml.Node) *Rule {
	r := &Rule{Line: d.line(n), Bound: math.NaN(), Alpha: math.NaN(), Margin: math.NaN()}
	sides := math.NaN()
	d.mapping(n, "rule", fields{
		"direction":  func(v *yaml.Node) { d.str(v, "rule.direction", (*string)(&r.Direction)) },
		"bound":      func(v *yaml.Node) { d.num(v, "rule.bound", &r.Bound) },
		"compare_to": func(v *yaml.Node) { d.str(v, "rule.compare_to", &r.CompareTo) },
		"use":        func(v *yaml.Node) { d.str(v, "rule.use", (*string)(&r.Use)) },
		"alpha":      func(v *yaml.Node) { d.num(v, "rule.alpha", &r.Alpha); d.checkAlpha(v.Line, "rule.alpha", r.Alpha) },
		"margin":     func(v *yaml.Node) { d.num(v, "rule.margin", &r.Margin) },
		"sides":      func(v *yaml.Node) { d.num(v, "rule.sides", &sides) },
	})
	switch sides {
	case 1, 2:
		r.Sides = int(sides)
	default:
		if !math.IsNaN(sides) {
			d.errf(r.Line, "rule.sides %v: want 1 or 2", sides)
		}
	}
	return r
}

// reservedWords are the words of where expressions, which a derived
// column may not be named.
var reservedWords = []string{"true", "false", "and", "or", "not", "in"}

// validate checks what the grammar cannot: references, required and
// contradictory keys, expressions and formulas.
func (d *decoder) validate(f *File) {
	derived := map[string]bool{}
	later := map[string]int{} // derived name → line, for references ahead
	for _, x := range f.Derive {
		if _, ok := later[x.Name]; !ok && x.Name != "" {
			later[x.Name] = x.Line
		}
	}
	for _, x := range f.Derive {
		switch {
		case x.Name == "":
			d.errf(x.Line, "derive: name is required")
		case !isIdent(x.Name):
			d.errf(x.Line, "derive: name %q: want letters, digits and _", x.Name)
		case derived[x.Name]:
			d.errf(x.Line, "derive: %q is defined twice", x.Name)
		case slices.Contains(reservedWords, strings.ToLower(x.Name)):
			d.errf(x.Line, "derive: name %q is a word of where expressions; choose another name", x.Name)
		default:
			if _, ok := ledger.LookupColumn(x.Name); ok {
				d.errf(x.Line, "derive: %q is already a ledger column", x.Name)
			}
		}
		derived[x.Name] = true
		if x.Where == "" {
			d.errf(x.Line, "derive %s: where is required", x.Name)
			continue
		}
		w, err := formula.ParseWhere(x.Where)
		if err != nil {
			d.errf(orLine(x.WhereLine, x.Line), "derive %s: %v", x.Name, err)
			continue
		}
		for _, c := range w.Columns() {
			if derived[c] && c != x.Name {
				continue // an earlier derived column
			}
			if c == x.Name {
				d.errf(x.Line, "derive %s: refers to itself", x.Name)
			} else if l, ok := later[c]; ok {
				// A cycle of any length has a reference ahead.
				d.errf(orLine(x.WhereLine, x.Line), "derive %s: refers to %s, derived later (line %d); a derived column may use only earlier ones", x.Name, c, l)
			}
		}
		x.expr = w
	}
	families := map[string]*Family{}
	members := map[string]int{}
	for _, fam := range f.Families {
		switch {
		case fam.ID == "":
			d.errf(fam.Line, "family: id is required")
		case families[fam.ID] != nil:
			d.errf(fam.Line, "family %q is defined twice", fam.ID)
		}
		switch {
		case slices.Contains(Adjusts, fam.Adjust):
		case fam.Adjust == "":
			d.errf(fam.Line, "family %s: adjust is required (%s)", fam.ID, orList(Adjusts))
		default:
			d.errf(fam.Line, "family %s: adjust %q: want %s", fam.ID, fam.Adjust, orList(Adjusts))
		}
		families[fam.ID] = fam
	}
	ids := map[string]*Hypothesis{}
	for _, h := range f.Hypotheses {
		switch {
		case h.ID == "":
			d.errf(h.Line, "hypothesis: id is required")
		case ids[h.ID] != nil:
			d.errf(h.Line, "hypothesis %s: id already used on line %d", h.ID, ids[h.ID].Line)
		}
		if h.ID != "" && ids[h.ID] == nil {
			ids[h.ID] = h
		}
		if h.Statement == "" {
			d.errf(h.Line, "hypothesis %s: statement is required", h.ID)
		}
		d.where(orLine(h.PopLine, h.Line), "hypothesis "+h.ID+": population", h.Population)
		switch h.Combine {
		case "all":
		case "partial":
			ruled := 0
			for _, p := range h.Parts {
				if p.Rule != nil {
					ruled++
				}
			}
			if ruled < 2 {
				d.errf(h.Line, "hypothesis %s: combine partial needs at least two parts with a rule", h.ID)
			}
		default:
			d.errf(h.Line, "hypothesis %s: combine %q: want %s", h.ID, h.Combine, orList(Combines))
		}
		ruled := false
		for _, p := range h.Parts {
			if p.Rule != nil {
				ruled = true
			}
			d.part1(f, h, p, families, members, derived)
		}
		if len(h.Parts) > 0 && !ruled {
			d.errf(h.Line, "hypothesis %s: no part has a rule, so nothing decides the verdict", h.ID)
		}
	}
	for _, h := range f.Hypotheses {
		switch h.Analysis {
		case Primary:
			if h.SensitivityOf != "" {
				d.errf(h.Line, "hypothesis %s: sensitivity_of is set but analysis is primary (say analysis: sensitivity)", h.ID)
			}
		case Sensitivity:
			p := ids[h.SensitivityOf]
			switch {
			case h.SensitivityOf == "":
				d.errf(h.Line, "hypothesis %s: a sensitivity analysis needs sensitivity_of (the primary hypothesis's id)", h.ID)
			case p == nil:
				d.errf(h.Line, "hypothesis %s: sensitivity_of %q: no such hypothesis%s", h.ID, h.SensitivityOf, didYouMean(h.SensitivityOf, idsOf(f)))
			case p.Analysis != Primary:
				d.errf(h.Line, "hypothesis %s: sensitivity_of %q is itself a sensitivity analysis", h.ID, h.SensitivityOf)
			}
		default:
			d.errf(h.Line, "hypothesis %s: analysis %q: want %s", h.ID, h.Analysis, orList(Analyses))
		}
	}
	for _, fam := range f.Families {
		if fam.ID != "" && members[fam.ID] == 0 {
			d.errf(fam.Line, "family %s is empty: no test names it", fam.ID)
		}
	}
}

func idsOf(f *File) []string {
	var s []string
	for _, h := range f.Hypotheses {
		s = append(s, h.ID)
	}
	return s
}

func didYouMean(name string, candidates []string) string {
	if s := frame.Similar(name, candidates); len(s) > 0 {
		return " (did you mean " + strings.Join(s, ", ") + "?)"
	}
	return ""
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func (d *decoder) where(line int, what, src string) {
	if src == "" {
		return
	}
	w, err := formula.ParseWhere(src)
	if err != nil {
		d.errf(line, "%s: %v", what, err)
		return
	}
	if err := w.Check(func(name string) (ledger.Kind, bool) {
		c, ok := ledger.LookupColumn(name)
		return c.Kind, ok
	}); err != nil {
		d.errf(line, "%s: %v", what, err)
	}
}

// kindKeys lists the estimand keys each kind accepts (kind itself aside).
var kindKeys = map[Kind][]string{
	KindRate:        {"weight", "cluster", "level"},
	KindRateDiff:    {"weight", "cluster", "level", "arm", "a", "b"},
	KindMcNemar:     {"arm", "a", "b", "pair_by", "test", "family"},
	KindOddsRatio:   {"model", "fit", "formula", "term", "group", "corr", "order", "cov", "fallback", "refs", "family"},
	KindCoefficient: {"fit", "distribution", "link", "scale", "formula", "term", "contrast", "random_effects", "group", "corr", "order", "cov", "fallback", "reml", "refs", "family"},
	KindShapley:     {"formula", "term", "r2", "refs"},
	KindTOST:        {"arm", "a", "b", "pair_by", "cluster", "method"},
}

// setKeys lists the estimand keys that were given.
func (e *Estimand) setKeys() []string {
	var s []string
	add := func(k string, set bool) {
		if set {
			s = append(s, k)
		}
	}
	add("weight", e.Weight != "")
	add("cluster", e.Cluster != "")
	add("level", !math.IsNaN(e.Level))
	add("arm", e.Arm != "")
	add("a", e.A != "")
	add("b", e.B != "")
	add("pair_by", len(e.PairBy) > 0)
	add("test", e.Test != "")
	add("family", e.Family != "")
	add("model", e.model() != "")
	add("fit", e.Spec.Fit != "")
	add("distribution", e.Spec.Family != "" && e.model() == "")
	add("link", e.Spec.Link != "")
	add("scale", e.Scale != "")
	add("order", e.Spec.Order != "")
	add("cov", e.Spec.Cov != "")
	add("reml", e.hasREML)
	add("formula", e.Spec.Formula != "")
	add("term", e.Term != "")
	add("contrast", e.Contrast != "")
	add("random_effects", e.RandomEffects != "")
	add("group", e.Spec.Group != "")
	add("corr", e.Spec.Corr != "")
	add("fallback", e.Fallback != "")
	add("refs", e.Spec.Refs != nil)
	add("r2", e.R2 != "")
	add("method", e.Method != "")
	return s
}

func (d *decoder) part1(f *File, h *Hypothesis, p *Part, families map[string]*Family, members map[string]int, derived map[string]bool) {
	what := "hypothesis " + h.ID
	if p.Name != "" {
		what += " part " + p.Name
	}
	e := &p.Estimand
	line := e.Line
	d.where(orLine(p.PopLine, p.Line), what+": population", p.Population)
	if p.Outcome == "" {
		p.Outcome = h.Outcome
	}
	switch p.IfNotComputable {
	case IfNotComputableFail, IfNotComputableNotSupported:
	default:
		d.errf(p.Line, "%s: if_not_computable %q: want %s", what, p.IfNotComputable, orList(IfNotComputables))
	}
	allowed, ok := kindKeys[e.Kind]
	if !ok {
		if e.Kind == "" {
			d.errf(line, "%s: estimand.kind is required (%s)", what, orList(Kinds))
		} else {
			d.errf(line, "%s: estimand.kind %q: want %s%s", what, e.Kind, orList(Kinds), didYouMean(string(e.Kind), kindNames()))
		}
		return
	}
	for _, k := range e.setKeys() {
		if !slices.Contains(allowed, k) {
			d.errf(line, "%s: estimand.%s does not apply to a %s (it takes %s)", what, k, e.Kind, strings.Join(allowed, ", "))
		}
	}
	needOutcome := !e.Kind.fitsFormula()
	if needOutcome && p.Outcome == "" {
		d.errf(line, "%s: outcome is required for a %s (on the hypothesis or the part)", what, e.Kind)
	}
	if !needOutcome && p.Outcome != "" && p.Outcome != h.Outcome {
		d.errf(p.Line, "%s: outcome does not apply to a %s (the formula's response is the outcome)", what, e.Kind)
	}
	if !math.IsNaN(e.Level) && !(e.Level > 0 && e.Level < 1) {
		d.errf(line, "%s: estimand.level %v: want a confidence level in (0, 1)", what, e.Level)
	}
	if math.IsNaN(e.Level) {
		e.Level = 0.95
	}
	if e.Weight == "none" {
		e.Weight = ""
	}
	twoLevels := func() {
		switch {
		case e.Arm == "":
			d.errf(line, "%s: estimand.arm is required for a %s", what, e.Kind)
		case e.A == "" || e.B == "":
			d.errf(line, "%s: estimand.a and estimand.b (two levels of %s) are required", what, e.Arm)
		case e.A == e.B:
			d.errf(line, "%s: estimand.a and estimand.b are the same level %q", what, e.A)
		}
	}
	switch e.Kind {
	case KindRateDiff:
		twoLevels()
	case KindMcNemar:
		twoLevels()
		if len(e.PairBy) == 0 {
			d.errf(line, "%s: estimand.pair_by (the design key that matches episodes) is required for mcnemar", what)
		}
		switch {
		case e.Test == "":
			e.Test = "exact"
		case !slices.Contains(McNemarTests, e.Test):
			d.errf(line, "%s: estimand.test %q: want %s", what, e.Test, orList(McNemarTests))
		}
	case KindTOST:
		twoLevels()
		if len(e.PairBy) > 0 && e.Cluster != "" {
			d.errf(line, "%s: estimand.pair_by and estimand.cluster contradict each other (paired or clustered independent samples, not both)", what)
		}
		if e.Method != "" && (len(e.PairBy) > 0 || e.Cluster != "") {
			d.errf(line, "%s: estimand.method applies only to unpaired, unclustered samples", what)
		}
		if e.Method != "" && !slices.Contains(TOSTMethods, e.Method) {
			d.errf(line, "%s: estimand.method %q: want %s", what, e.Method, orList(TOSTMethods))
		}
	case KindOddsRatio, KindCoefficient:
		d.model(line, what, e)
		d.formula(line, what, e, true)
	case KindShapley:
		d.formula(line, what, e, false)
		if e.R2 != "" && !slices.Contains(R2s, e.R2) {
			d.errf(line, "%s: estimand.r2 %q: want %s", what, e.R2, orList(R2s))
		}
	}
	if e.Family != "" {
		if families[e.Family] == nil {
			d.errf(line, "%s: estimand.family %q is not declared under families%s", what, e.Family, didYouMean(e.Family, familyIDs(f)))
		} else {
			members[e.Family]++
		}
		if p.Rule != nil && p.Rule.Use != "" && p.Rule.Use != UseTest {
			d.errf(p.Rule.Line, "%s: a multiplicity family adjusts p-values, but the rule uses the %s", what, p.Rule.Use)
		}
	}
	if p.Rule != nil {
		d.checkRule(f, what, p, derived)
	}
}

func familyIDs(f *File) []string {
	var s []string
	for _, x := range f.Families {
		s = append(s, x.ID)
	}
	return s
}

func mapKeys[K ~string, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// kindNames are the kinds, sorted, for close matches.
func kindNames() []string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	slices.Sort(s)
	return s
}

// fitsFormula reports whether the kind fits a formula, whose response is
// its outcome.
func (k Kind) fitsFormula() bool {
	return k == KindOddsRatio || k == KindCoefficient || k == KindShapley
}

func (d *decoder) formula(line int, what string, e *Estimand, random bool) {
	if e.Spec.Formula == "" {
		d.errf(line, "%s: estimand.formula is required for a %s", what, e.Kind)
		return
	}
	fm, err := formula.Parse(e.Spec.Formula)
	if err != nil {
		d.errf(line, "%s: %v", what, err)
		return
	}
	if e.Contrast != "" {
		d.contrast(what, e, fm)
		return
	}
	if e.Term == "" {
		d.errf(line, "%s: estimand.term is required (the %s to read)", what, map[bool]string{true: "coefficient", false: "factor"}[random])
		return
	}
	key := e.fitKey()
	if rt := formulaRandom(fm); rt != "" && e.fit() != analysis.FitGLMM {
		d.errf(e.at("formula"), "%s: the formula has a random term %s, which only %s glmm fits", what, rt, key)
	}
	if random && e.fit() == analysis.FitGLMM && formulaRandom(fm) == "" {
		d.errf(e.at("formula"), "%s: %s glmm needs a random term such as (1|template) in the formula", what, key)
	}
	if random {
		for _, c := range termLevels(e.Term) {
			if ref, ok := e.Spec.Refs[c[0]]; ok && ref == c[1] {
				d.errf(e.at("term"), "%s: estimand.term %q: %s is the reference level of %s (estimand.refs), which has no coefficient", what, e.Term, c[1], c[0])
			}
		}
	}
	// col[T.level] would pass for col below, and match no coefficient.
	if name := engineName(e.Term, fm.Columns()); random && name != "" && strings.Contains(e.Term, "[T.") {
		d.errf(e.at("term"), "%s: estimand.term %q: the engine names this coefficient %q (col[level]; a[x]:b[y] for an interaction)", what, e.Term, name)
		return
	}
	col := e.Term
	if i := strings.IndexByte(col, '['); i > 0 && strings.HasSuffix(col, "]") && !strings.Contains(col, ":") {
		col = col[:i]
	}
	for _, t := range fm.Terms {
		if t.Order() == 1 && t.Factors[0].Column == col || t.String() == e.Term || termOfName(t, e.Term) {
			return
		}
	}
	if name := engineName(e.Term, fm.Columns()); random && name != "" {
		d.errf(e.at("term"), "%s: estimand.term %q: the engine names this coefficient %q (col[level]; a[x]:b[y] for an interaction)", what, e.Term, name)
		return
	}
	var names []string
	for _, t := range fm.Terms {
		names = append(names, t.String())
	}
	if parts := strings.Split(e.Term, ":"); len(parts) > 1 {
		// An interaction's coefficient (a[x]:b) needs the formula's a:b.
		for i, p := range parts {
			if j := strings.IndexByte(p, '['); j > 0 && strings.HasSuffix(p, "]") {
				parts[i] = p[:j]
			}
		}
		inter := strings.Join(parts, ":")
		d.errf(e.at("term"), "%s: estimand.term %q is a coefficient of the interaction %s, which %q does not have (its terms: %s; %s or %s adds it)",
			what, e.Term, inter, e.Spec.Formula, strings.Join(names, ", "), strings.Join(parts, "*"), inter)
		return
	}
	d.errf(e.at("term"), "%s: estimand.term %q is not a term of %q%s", what, e.Term, e.Spec.Formula, didYouMean(col, names))
}

// model is the logistic model of before families that the model key
// names ("" when the key is absent): the engine's Family logit, gee or
// glmm, which keeps that model's output.
func (e *Estimand) model() Model {
	if e.lines["model"] == 0 {
		return ""
	}
	return Model(e.Spec.Family)
}

// fit is the model estimand's fit: Fit, or the one model names.
func (e *Estimand) fit() analysis.ModelFit {
	if e.Spec.Fit != "" {
		return e.Spec.Fit
	}
	switch e.model() {
	case ModelLogit:
		return analysis.FitGLM
	case ModelGEE:
		return analysis.FitGEE
	case ModelGLMM:
		return analysis.FitGLMM
	}
	return ""
}

// fitKey is the key that names the fit in messages: model when the
// estimand gives it, fit otherwise.
func (e *Estimand) fitKey() string {
	if e.model() != "" {
		return "model"
	}
	return "fit"
}

// link is the model estimand's link: Link, the canonical link of its
// distribution, or logit for an odds ratio.
func (e *Estimand) link() stats.Link {
	switch {
	case e.Kind == KindOddsRatio:
		return stats.LinkLogit
	case e.Spec.Link != "":
		return e.Spec.Link
	case e.Spec.Family.Valid():
		return e.Spec.Family.CanonicalLink()
	}
	return ""
}

// ratio reports whether the estimand reads exp(β) (null 1).
func (e *Estimand) ratio() bool {
	return e.Kind == KindOddsRatio || e.Kind == KindCoefficient && e.Scale == ScaleRatio
}

// ratioLinks are the links under which exp(β) is a ratio: of odds
// (logit), of means or rates (log), of hazards (cloglog).
var ratioLinks = []stats.Link{stats.LinkLogit, stats.LinkLog, stats.LinkCloglog}

// fits are the engine's fits, as a model estimand names them.
var fits = []analysis.ModelFit{analysis.FitGLM, analysis.FitGEE, analysis.FitGLMM}

// model checks the fit, distribution, link, scale and GEE keys of an
// odds_ratio or coefficient (what the engine would refuse, found before
// any data are read) and fills in the scale.
func (d *decoder) model(line int, what string, e *Estimand) {
	switch {
	case e.Kind == KindOddsRatio && e.model() != "" && e.Spec.Fit != "":
		d.errf(line, "%s: estimand.model and estimand.fit both name the fit: give one (model logit, gee, glmm is fit glm, gee, glmm)", what)
	case e.Kind == KindOddsRatio && e.model() == "" && e.Spec.Fit == "":
		d.errf(line, "%s: estimand.model is required (logit, gee or glmm; or estimand.fit glm, gee or glmm)", what)
	case e.model() != "" && !slices.Contains(Models, e.model()):
		d.errf(e.at("model"), "%s: estimand.model %q: want %s", what, e.model(), orList(Models))
	case e.Kind == KindCoefficient && e.Spec.Fit == "":
		d.errf(line, "%s: estimand.fit is required (%s)", what, orList(fits))
	case e.Spec.Fit != "" && !slices.Contains(fits, e.Spec.Fit):
		d.errf(e.at("fit"), "%s: estimand.fit %q: want %s", what, e.Spec.Fit, orList(fits))
	}
	fit := e.fit()
	if e.Kind == KindCoefficient {
		dists := []stats.Family{stats.Binomial, stats.Poisson, stats.Gaussian}
		switch {
		case e.Spec.Family == "":
			d.errf(e.at("distribution"), "%s: estimand.distribution is required (%s)", what, orList(dists))
		case !e.Spec.Family.Valid():
			d.errf(e.at("distribution"), "%s: estimand.distribution %q: want %s%s", what, e.Spec.Family, orList(dists),
				didYouMean(string(e.Spec.Family), []string{"binomial", "poisson", "gaussian"}))
		}
		links := []stats.Link{stats.LinkLogit, stats.LinkProbit, stats.LinkCloglog, stats.LinkLog, stats.LinkIdentity}
		link := e.link()
		if e.Spec.Link != "" && !(slices.Contains(links, e.Spec.Link) && e.Spec.Family.Valid() && e.Spec.Link.Allowed(e.Spec.Family)) {
			// The scale's default follows the link the file meant to give.
			link = ""
		}
		if e.Spec.Link != "" {
			if !slices.Contains(links, e.Spec.Link) {
				d.errf(e.at("link"), "%s: estimand.link %q: want %s", what, e.Spec.Link, orList(links))
			} else if e.Spec.Family.Valid() && !e.Spec.Link.Allowed(e.Spec.Family) {
				ok := slices.DeleteFunc(slices.Clone(links), func(l stats.Link) bool { return !l.Allowed(e.Spec.Family) })
				d.errf(e.at("link"), "%s: estimand.link %s does not apply to distribution %s (want %s)", what, e.Spec.Link, e.Spec.Family, orList(ok))
			}
		}
		switch {
		case e.Scale != "" && !slices.Contains(Scales, e.Scale):
			d.errf(e.at("scale"), "%s: estimand.scale %q: want %s", what, e.Scale, orList(Scales))
		case e.Contrast != "" && e.Scale == "":
			e.Scale = ScaleDifference // an average contrast: a difference unless asked otherwise
		case e.Contrast != "":
			// Averages on the response scale: both scales mean something under any link.
		case e.Scale == ScaleRatio && link != "" && !slices.Contains(ratioLinks, link):
			d.errf(e.at("scale"), "%s: estimand.scale ratio reads exp(β), which is no ratio under the %s link (ratios: %s links); use scale difference", what, link, orList(ratioLinks))
		case e.Scale == "" && slices.Contains([]stats.Link{stats.LinkLogit, stats.LinkLog}, link):
			e.Scale = ScaleRatio
		case e.Scale == "":
			e.Scale = ScaleDifference
		}
		if e.hasREML && !(fit == analysis.FitGLMM && e.Spec.Family == stats.Gaussian) {
			d.errf(e.at("reml"), "%s: estimand.reml applies to a gaussian glmm (REML or ML), not a %s %s", what, orDefault(string(fit), "?"), orDefault(string(e.Spec.Family), "?"))
		}
	}
	if fit == "" {
		return // reported above
	}
	key := e.fitKey()
	if fit != analysis.FitGEE {
		if e.Spec.Group != "" || e.Spec.Corr != "" || e.Fallback != "" {
			d.errf(line, "%s: group, corr and fallback apply only to %s gee", what, key)
		}
		if e.Spec.Order != "" {
			d.errf(e.at("order"), "%s: estimand.order applies only to %s gee with corr ar1", what, key)
		}
		if e.Spec.Cov != "" {
			d.errf(e.at("cov"), "%s: estimand.cov applies only to %s gee", what, key)
		}
		return
	}
	covs := []stats.GEECov{stats.Robust, stats.BiasReduced, stats.KC, stats.Naive}
	if e.Spec.Cov != "" && !slices.Contains(covs, e.Spec.Cov) {
		d.errf(e.at("cov"), "%s: estimand.cov %q: want %s", what, e.Spec.Cov, orList(covs))
	}
	if e.Spec.Group == "" {
		d.errf(line, "%s: a gee needs estimand.group (its clusters)", what)
	}
	corrs := []stats.Corr{stats.Independence, stats.Exchangeable, stats.AR1}
	if e.Spec.Corr != "" && !e.Spec.Corr.Valid() {
		d.errf(e.at("corr"), "%s: estimand.corr %q: want %s%s", what, e.Spec.Corr, orList(corrs), didYouMean(string(e.Spec.Corr), []string{"independence", "exchangeable", "ar1"}))
	}
	switch {
	case e.Fallback == "":
	case e.Fallback != stats.Independence && e.Fallback != stats.Exchangeable:
		d.errf(e.at("fallback"), "%s: estimand.fallback %q: want independence or exchangeable", what, e.Fallback)
	case e.Fallback == orDefault(e.Spec.Corr, stats.Exchangeable):
		d.errf(e.at("fallback"), "%s: estimand.fallback %s is the working correlation it falls back from", what, e.Fallback)
	}
	switch {
	case e.Spec.Corr == stats.AR1 && e.Spec.Order == "":
		d.errf(e.at("corr"), "%s: corr ar1 needs estimand.order (the column that orders a cluster's rows)", what)
	case e.Spec.Corr != stats.AR1 && e.Spec.Order != "":
		d.errf(e.at("order"), "%s: estimand.order orders a cluster's rows for corr ar1; corr is %s", what, orDefault(e.Spec.Corr, stats.Exchangeable))
	}
}

// contrast checks a coefficient's contrast key: "col[level]" of a column
// of the formula's fixed part, not its reference level, instead of a
// term; random_effects for a glmm only.
func (d *decoder) contrast(what string, e *Estimand, fm *formula.Formula) {
	line := e.at("contrast")
	if e.Term != "" {
		d.errf(line, "%s: estimand.contrast and estimand.term both name what to read: give one", what)
		return
	}
	col, level, ok := contrastLevel(e.Contrast)
	if !ok {
		d.errf(line, "%s: estimand.contrast %q: want col[level], the level whose average contrast with the reference level is read", what, e.Contrast)
		return
	}
	if !slices.ContainsFunc(fm.Terms, func(t formula.Term) bool { return t.Has(col) }) {
		d.errf(line, "%s: estimand.contrast %q: %s is not a column of the formula's fixed part %s", what, e.Contrast, col, fm)
		return
	}
	if ref, ok := e.Spec.Refs[col]; ok && ref == level {
		d.errf(line, "%s: estimand.contrast %q: %s is the reference level of %s (estimand.refs) it would be compared with", what, e.Contrast, level, col)
	}
	switch {
	case e.RandomEffects != "" && !e.RandomEffects.Valid():
		d.errf(e.at("random_effects"), "%s: estimand.random_effects %q: want %s", what, e.RandomEffects, orList(analysis.RandomEffectsChoices))
	case e.RandomEffects != "" && e.fit() != analysis.FitGLMM:
		d.errf(e.at("random_effects"), "%s: estimand.random_effects applies to %s glmm", what, e.fitKey())
	}
}

// contrastLevel splits "col[level]".
func contrastLevel(s string) (col, level string, ok bool) {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") || len(s) < i+3 {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

func formulaRandom(f *formula.Formula) string {
	if len(f.Random) == 0 {
		return ""
	}
	return f.Random[0].String()
}

// engineName is the engine's name (formula.Build: col[level], parts
// joined by ":") of a coefficient named as statsmodels (col[T.level]) or
// R (collevel) name it, or "" if name is not such a name.
func engineName(name string, cols []string) string {
	parts := strings.Split(name, ":")
	changed := false
	for i, p := range parts {
		if j := strings.Index(p, "[T."); j > 0 && strings.HasSuffix(p, "]") {
			parts[i], changed = p[:j]+"["+p[j+3:], true
			continue
		}
		if strings.Contains(p, "[") || slices.Contains(cols, p) {
			continue
		}
		// R pastes the level to the column: the longest column that
		// prefixes the name, so that "model2x" reads as model2 + x.
		best := ""
		for _, c := range cols {
			if len(c) > len(best) && len(p) > len(c) && strings.HasPrefix(p, c) {
				best = c
			}
		}
		if best != "" {
			parts[i], changed = best+"["+p[len(best):]+"]", true
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(parts, ":")
}

// termLevels lists the (column, level) pairs a coefficient's name gives:
// col[level], or each part of an interaction a[x]:b[y]; a numeric part
// (col) gives none.
func termLevels(term string) [][2]string {
	var out [][2]string
	for _, p := range strings.Split(term, ":") {
		if j := strings.IndexByte(p, '['); j > 0 && strings.HasSuffix(p, "]") {
			out = append(out, [2]string{p[:j], p[j+1 : len(p)-1]})
		}
	}
	return out
}

// termOfName reports whether a coefficient name such as a[x]:b names a
// column of the interaction term t: its parts, each col or col[level],
// are t's variables in order.
func termOfName(t formula.Term, name string) bool {
	parts := strings.Split(name, ":")
	if len(parts) != t.Order() {
		return false
	}
	for i, p := range parts {
		if j := strings.IndexByte(p, '['); j > 0 && strings.HasSuffix(p, "]") {
			p = p[:j]
		}
		if p != t.Factors[i].Column {
			return false
		}
	}
	return true
}

func (d *decoder) checkRule(f *File, what string, p *Part, derived map[string]bool) {
	r, e := p.Rule, &p.Estimand
	line := r.Line
	if math.IsNaN(r.Alpha) {
		r.Alpha = f.Alpha
	}
	switch {
	case r.Direction == "":
		d.errf(line, "%s: rule.direction is required (%s)", what, orList(Directions))
		return
	case !slices.Contains(Directions, r.Direction):
		var names []string
		for _, x := range Directions {
			names = append(names, string(x))
		}
		d.errf(line, "%s: rule.direction %q: want %s%s", what, r.Direction, orList(Directions), didYouMean(string(r.Direction), names))
		return
	}
	if (r.Direction == Equivalent) != (e.Kind == KindTOST) {
		if e.Kind == KindTOST {
			d.errf(line, "%s: a tost decides equivalence: rule.direction must be equivalent", what)
		} else {
			d.errf(line, "%s: direction equivalent needs a tost estimand, not a %s", what, e.Kind)
		}
		return
	}
	if r.Direction == Equivalent {
		switch {
		case math.IsNaN(r.Margin):
			d.errf(line, "%s: an equivalence rule needs rule.margin (in percentage points)", what)
		case !(r.Margin > 0 && r.Margin < 100):
			d.errf(line, "%s: rule.margin %v: want percentage points in (0, 100)", what, r.Margin)
		}
		if !math.IsNaN(r.Bound) || r.CompareTo != "" {
			d.errf(line, "%s: an equivalence rule takes a margin, not a bound or compare_to", what)
		}
		if r.Use != "" && r.Use != UseInterval {
			d.errf(line, "%s: an equivalence rule reads the 1−2α interval (use interval), not the %s", what, r.Use)
		}
		r.Use = UseInterval
		if r.Alpha != defaultAlpha && e.Cluster == "" {
			d.errf(line, "%s: the engine's tost tests at α = 0.05 (a 90%% interval); α %v needs estimand.cluster (the Wald test on n_eff)", what, r.Alpha)
		}
		return
	}
	if !math.IsNaN(r.Margin) {
		d.errf(line, "%s: rule.margin applies only to direction equivalent", what)
	}
	if !math.IsNaN(r.Bound) && r.CompareTo != "" {
		d.errf(line, "%s: rule.bound and rule.compare_to contradict each other: give one", what)
	}
	if r.CompareTo != "" {
		if e.Kind != KindShapley {
			d.errf(line, "%s: rule.compare_to applies only to a shapley_share", what)
		} else if r.CompareTo == e.Term {
			d.errf(line, "%s: rule.compare_to is the estimand's own term %q", what, e.Term)
		}
	}
	if e.Kind == KindShapley && math.IsNaN(r.Bound) && r.CompareTo == "" {
		d.errf(line, "%s: a shapley_share rule needs a bound (percent) or compare_to (another factor)", what)
	}
	if e.ratio() && !math.IsNaN(r.Bound) && r.Bound <= 0 {
		d.errf(line, "%s: rule.bound %v: %s is positive", what, r.Bound, map[bool]string{true: "an odds ratio", false: "a ratio"}[e.Kind == KindOddsRatio])
	}
	if (e.Kind == KindRate) && !math.IsNaN(r.Bound) && !(r.Bound >= 0 && r.Bound <= 100) {
		d.errf(line, "%s: rule.bound %v: a rate is a percentage in [0, 100]", what, r.Bound)
	}
	if e.Kind == KindRate && math.IsNaN(r.Bound) {
		d.errf(line, "%s: a rate rule needs rule.bound (percent)", what)
	}
	model := e.Kind == KindOddsRatio || e.Kind == KindCoefficient
	hasP := e.Kind == KindMcNemar || model
	hasCI := e.Kind == KindRate || e.Kind == KindRateDiff || model
	if r.Use == "" {
		r.Use = UsePoint
		if hasP {
			r.Use = UseTest
		}
	}
	switch r.Use {
	case UsePoint:
		if r.Direction == Different {
			d.errf(line, "%s: direction different needs a test (use test)", what)
		}
	case UseInterval:
		if !hasCI {
			d.errf(line, "%s: rule.use interval: a %s has no interval", what, e.Kind)
		}
		if r.Direction == Different {
			d.errf(line, "%s: direction different needs a test (use test)", what)
		}
	case UseTest:
		if r.Sides == 1 && r.Direction == Different {
			d.errf(line, "%s: rule.sides 1 contradicts direction different (a two-sided test)", what)
		}
		if !hasP {
			d.errf(line, "%s: rule.use test: a %s has no p-value (use point or interval)", what, e.Kind)
		}
		if hasP && !math.IsNaN(r.Bound) && r.Bound != e.null() {
			d.errf(line, "%s: the test's p-value is against %v, so rule.bound %v contradicts use test", what, e.null(), r.Bound)
		}
	default:
		d.errf(line, "%s: rule.use %q: want %s", what, r.Use, orList(Uses))
	}
	if r.Sides != 0 && r.Use != UseTest {
		d.errf(line, "%s: rule.sides applies only to use test", what)
	}
	if r.Sides == 0 {
		r.Sides = 2
	}
	if math.IsNaN(r.Bound) && r.CompareTo == "" {
		r.Bound = e.null()
	}
}

// null is the no-effect value of an estimand: 1 for a ratio, else 0.
func (e *Estimand) null() float64 {
	if e.ratio() {
		return 1
	}
	return 0
}

// orLine is a key's own line, or the enclosing item's when the key is
// absent.
func orLine(key, item int) int {
	if key > 0 {
		return key
	}
	return item
}
