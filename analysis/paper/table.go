package paper

import (
	"fmt"
	"math"
)

// Kind says what a cell's number is, which fixes its unit and how renderers
// round it for people.
type Kind int

// Cell kinds.
const (
	// Percent is a rate in percent (0–100); Lo and Hi are its 95% interval.
	Percent Kind = iota
	// PP is a difference in percentage points, printed with a sign.
	PP
	// PValue is a p-value.
	PValue
	// Number is a plain real (a mean time in minutes, a pseudo-R², a cost).
	Number
	// Count is a number of episodes or pairs.
	Count
	// Ratio is an odds ratio; Lo and Hi are its 95% interval.
	Ratio
	// Text is a string cell (Text holds it; Value is NaN).
	Text
	// Delta is a signed difference of plain numbers (run − paper).
	Delta
)

var kindNames = [...]string{"percent", "pp", "p", "number", "count", "ratio", "text", "delta"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// MarshalText writes the kind's name into JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Cell is one number of a table with what it rests on.
type Cell struct {
	Kind   Kind
	Value  float64 // NaN when undefined
	Lo, Hi float64 // 95% interval (Percent, Ratio); NaN when not given
	N      int     // raw denominator (episodes or pairs) behind Value; 0 when not applicable
	NEff   float64 // effective sample size behind the interval; NaN when not applicable
	Digits int     // decimals a person sees (text, Markdown, LaTeX); CSV and JSON keep all
	Text   string  // the cell's text for Kind Text
	// Design marks a cell computed from design columns only (counts of
	// episodes, P(δ ≤ Δ)); it does not move when outcomes are permuted.
	Design bool
	// Below marks a PValue cell whose p-value underflowed: Value is the
	// bound stats.PFloor (never 0) and the p-value is smaller; Log10 then
	// holds log₁₀ p.
	Below bool
	Log10 float64
}

// Defined reports whether the cell holds a number (or text).
func (c Cell) Defined() bool {
	if c.Kind == Text {
		return c.Text != ""
	}
	return !math.IsNaN(c.Value)
}

// Column is one column of a table. Key is stable (used by the paper
// reference and by plots); Label is what a person reads; Group is a
// spanning header ("fixed delay (90 s)") or "".
type Column struct {
	Key    string
	Label  string
	Group  string
	ShowCI bool // renderers print the interval beside the value
}

// Row is one row: Labels fill the table's label columns, Key is stable.
type Row struct {
	Key    string
	Labels []string
	Cells  []Cell
}

// Table is one of the paper's tables computed from an episode table.
type Table struct {
	// Name is the stable id of a figure's data ("figure2"); "" for the
	// paper's tables, whose id is "table<Number>".
	Name        string
	Number      int
	Title       string   // short caption ("E1 results by model")
	Caption     string   // the full caption, as in the paper but for this run
	LabelHeader []string // headers of the label columns ("Model"; "Contract", "Condition")
	Columns     []Column
	Rows        []Row
	Warnings    []string
}

// ID is the table's stable name: "table3".
func (t *Table) ID() string {
	if t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("table%d", t.Number)
}

// Cell returns the cell at row key r and column key c.
func (t *Table) Cell(r, c string) (Cell, bool) {
	j := -1
	for k, col := range t.Columns {
		if col.Key == c {
			j = k
			break
		}
	}
	if j < 0 {
		return Cell{}, false
	}
	for _, row := range t.Rows {
		if row.Key == r {
			return row.Cells[j], true
		}
	}
	return Cell{}, false
}

// columnLabel is the column's label as a person reads it in the table
// ("heavy-tailed delay (40 s–2 h): EOS (%)"), or key itself if t has no
// such column; warnings name columns this way, not by their keys.
func (t *Table) columnLabel(key string) string {
	for _, c := range t.Columns {
		if c.Key != key {
			continue
		}
		if c.Group != "" {
			return c.Group + ": " + c.Label
		}
		return c.Label
	}
	return key
}

// warnf appends a warning to the table.
func (t *Table) warnf(format string, args ...any) {
	t.Warnings = append(t.Warnings, fmt.Sprintf(format, args...))
}

// nan is an undefined number.
var nan = math.NaN()

// numCell is a cell of kind k with value v and no interval.
func numCell(k Kind, v float64, digits int) Cell {
	return Cell{Kind: k, Value: v, Lo: nan, Hi: nan, NEff: nan, Digits: digits}
}

// countCell is a design count.
func countCell(n int) Cell {
	c := numCell(Count, float64(n), 0)
	c.N = n
	c.Design = true
	return c
}

// textCell is a string cell.
func textCell(s string) Cell {
	return Cell{Kind: Text, Value: nan, Lo: nan, Hi: nan, NEff: nan, Text: s}
}
