package analysis

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
)

// WarningCode classifies a Warning, so that a caller can act on a kind of
// warning (drop a fit with separation, flag few clusters) without
// parsing its text.
type WarningCode int

// Warning codes.
const (
	WarnMissingRows     WarningCode = iota + 1 // rows with a missing value left out
	WarnUnweighted                             // a weight is absent or does not apply to every statistic
	WarnZeroWeight                             // a group whose weights are all zero
	WarnSmallSample                            // an effective sample size below 1
	WarnUndefined                              // a statistic the data cannot define (one row, one cluster, one pair, a zero standard error)
	WarnICCUndefined                           // the intraclass correlation is undefined; n_eff falls back to Kish's
	WarnUnmatched                              // episodes without a partner dropped from a paired comparison
	WarnNoPairs                                // no matched pairs at all
	WarnZeroDifferences                        // zero differences dropped by the signed-rank test
	WarnDroppedTerm                            // a model column left out: a single level, a constant, an empty or aliased column
	WarnSeparation                             // (quasi-)separation: estimates without a finite maximum
	WarnFewClusters                            // too few clusters for the robust sandwich
	WarnSingular                               // a boundary (singular) mixed-model fit
	WarnNotConverged                           // the fitter stopped before converging
	WarnFallback                               // a fit failed and a fallback was fitted instead (a preregistration's fallback correlation)
	WarnFit                                    // another diagnostic of the fitter
	WarnAdjusted                               // p-values adjusted over a family of tests (a preregistration's)
)

var warningNames = [...]string{
	WarnMissingRows:     "missing-rows",
	WarnUnweighted:      "unweighted",
	WarnZeroWeight:      "zero-weight",
	WarnSmallSample:     "small-sample",
	WarnUndefined:       "undefined",
	WarnICCUndefined:    "icc-undefined",
	WarnUnmatched:       "unmatched",
	WarnNoPairs:         "no-pairs",
	WarnZeroDifferences: "zero-differences",
	WarnDroppedTerm:     "dropped-term",
	WarnSeparation:      "separation",
	WarnFewClusters:     "few-clusters",
	WarnSingular:        "singular",
	WarnNotConverged:    "not-converged",
	WarnFallback:        "fallback",
	WarnFit:             "fit",
	WarnAdjusted:        "adjusted",
}

// String returns the code's name ("few-clusters").
func (c WarningCode) String() string {
	if c > 0 && int(c) < len(warningNames) {
		return warningNames[c]
	}
	return fmt.Sprintf("WarningCode(%d)", int(c))
}

// Warning is a caveat on a result that does not stop it: a group left
// without a statistic, a fit near a boundary.
type Warning struct {
	Code WarningCode
	// Field names the spec field the warning's advice concerns ("Cov",
	// "Firth"), when it has one.
	Field string
	Msg   string // what the warning prints as
	// text is the part of Msg that names spec fields by placeholder
	// (fieldtext), so that a caller can name them in its own words.
	text *fieldtext.Error
}

// Renamed returns w with the spec fields its message names in the words
// of names (fieldtext.Rename): a command's flags, say. A warning whose
// message names no field is returned as it is.
func (w Warning) Renamed(names map[string]string) Warning {
	if w.text != nil {
		w.Msg = strings.Replace(w.Msg, w.text.Error(), fieldtext.Rename(w.text, names).Error(), 1)
		w.text = nil // renamed once: the message now holds the caller's words
	}
	return w
}

// String returns the message.
func (w Warning) String() string { return w.Msg }

// MarshalText returns the message, the warning as it reads.
func (w Warning) MarshalText() ([]byte, error) { return []byte(w.Msg), nil }

// MarshalJSON encodes the warning as {"code": "few-clusters", "message":
// "…"}, so that a program reading a result's JSON (the Python package
// turns each code into a warning category) acts on the code, never on the
// text.
func (w Warning) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{w.Code.String(), w.Msg})
}

// warnings collects the warnings a result carries.
type warnings struct{ list []Warning }

func (w *warnings) addf(code WarningCode, format string, args ...any) {
	w.list = append(w.list, Warning{Code: code, Msg: fmt.Sprintf(format, args...)})
}

// addField adds a warning whose advice concerns the spec field field;
// format names fields by {Name} placeholders (fieldtext.New), read as the
// field names unless a caller renames them (Warning.Renamed).
func (w *warnings) addField(code WarningCode, field, format string, args ...any) {
	t := fieldtext.New(field, format, args...)
	w.list = append(w.list, Warning{Code: code, Field: field, Msg: t.Error(), text: t})
}

// add adds msgs, each with code.
func (w *warnings) add(code WarningCode, msgs ...string) {
	for _, m := range msgs {
		w.list = append(w.list, Warning{Code: code, Msg: m})
	}
}

// items returns the warnings, never nil (JSON [] rather than null).
func (w *warnings) items() []Warning {
	if w.list == nil {
		return []Warning{}
	}
	return w.list
}

// mixedCodes are the codes of the mixed-model fitter's warnings that
// callers classify; its other diagnostics are WarnFit. A gradient above
// tolerance is a failed convergence check, as lme4's checkConv has it.
var mixedCodes = map[mixed.WarningCode]WarningCode{
	mixed.WarnSingular:     WarnSingular,
	mixed.WarnNotConverged: WarnNotConverged,
	mixed.WarnGradient:     WarnNotConverged,
	mixed.WarnSeparation:   WarnSeparation,
}

// addMixed adds the warnings of a mixed-model fit.
func (w *warnings) addMixed(ws []mixed.Warning) {
	for _, m := range ws {
		code, ok := mixedCodes[m.Code]
		if !ok {
			code = WarnFit
		}
		w.list = append(w.list, Warning{Code: code, Msg: m.Message})
	}
}

// statsCodes are the codes of the fitters' warnings in this package's
// terms, with the spec field a warning's remedy concerns.
var statsCodes = map[stats.WarningCode]struct {
	code  WarningCode
	field string
}{
	stats.WarnNotConverged: {WarnNotConverged, ""},
	stats.WarnSeparation:   {WarnSeparation, ""},
	stats.WarnAliased:      {WarnDroppedTerm, ""},
	stats.WarnCovUndefined: {WarnUndefined, "Cov"},
	stats.WarnNoResidualDF: {WarnUndefined, ""},
}

// addStats adds the warnings of a GLM, GEE or logistic fit.
func (w *warnings) addStats(ws []stats.Warning) {
	for _, s := range ws {
		c, ok := statsCodes[s.Code]
		if !ok {
			c.code = WarnFit
		}
		w.list = append(w.list, Warning{Code: c.code, Field: c.field, Msg: s.Msg})
	}
}
