package ledger

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// parseBool accepts true/false (any case) and 1/0.
func parseBool(s string) (bool, bool) {
	switch s {
	case "1", "true", "TRUE", "True":
		return true, true
	case "0", "false", "FALSE", "False":
		return false, true
	}
	switch strings.ToLower(s) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// errEmpty is the message for an empty cell in a required column: the
// same whether the column was asked for or not.
const errEmpty = "empty cell in a required column"

// setCell parses a CSV cell into column i of e; it returns a problem
// message or "".
func setCell(e *Episode, i int, s string) string {
	r := e.ref(i)
	switch {
	case r.s != nil:
		*r.s = s
	case r.i != nil:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if s == "" {
				return "empty; expected an integer"
			}
			return "expected an integer, found " + strconv.Quote(s)
		}
		*r.i = v
	case r.b != nil:
		v, ok := parseBool(s)
		if !ok {
			return "expected a boolean (true, false, 1 or 0), found " + strconv.Quote(s)
		}
		*r.b = v
	default:
		// Empty is undefined: NaN, or nil for the optional cost_usd.
		if s == "" {
			if r.opt != nil {
				*r.opt = nil
			} else {
				*r.f = math.NaN()
			}
			return ""
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			var ne *strconv.NumError
			if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
				return "expected a number, found " + strconv.Quote(s)
			}
		}
		if r.opt != nil {
			p := new(float64) // only here, so that v itself stays on the stack
			*p = v
			*r.opt = p
		} else {
			*r.f = v
		}
	}
	return ""
}

func readCSVEpisodes(path string, opt ReadOptions, fn func(*Episode) error) error {
	f, err := openLedger(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // ragged rows are reported by us, naming the column

	hdr, err := cr.Read()
	if err == io.EOF {
		return Problem{File: path, Msg: "empty ledger: no header and no episodes"}
	}
	if err != nil {
		return csvProblem(path, err)
	}
	hdr = append([]string(nil), hdr...)
	if len(hdr) > 0 {
		hdr[0] = strings.TrimPrefix(hdr[0], "\ufeff")
	}
	// With opt.Columns, only the named columns (plus what their checks
	// need) are required, parsed and checked, as for Parquet: analysis
	// commands work on a user's CSV that has the columns they use.
	need := needCols(opt.Columns)
	var extraWanted map[string]bool
	if opt.Columns != nil {
		extraWanted = map[string]bool{}
		for _, c := range opt.Columns {
			if _, ok := colIndex[c]; !ok {
				extraWanted[c] = true
			}
		}
	}
	const skip = -2
	dst := make([]int, len(hdr)) // schema column index, -1 for a kept extra, skip
	// filled marks the required columns (all but cost_usd, and platform,
	// empty off social writes): an empty cell in one is an error whether
	// the caller reads the column or not, so that every command rejects
	// the same ledger with the same message. The check costs a length
	// test per cell of a row the reader has split anyway.
	filled := make([]bool, len(hdr))
	var present colMask
	var extras []string
	seen := map[string]bool{}
	for j, h := range hdr {
		if seen[h] {
			return Problem{File: path, Line: 1, Field: h, Msg: "column appears twice in the header"}
		}
		seen[h] = true
		if i, ok := colIndex[h]; ok {
			dst[j] = i
			filled[j] = requiredSet.has(i) && h != "platform"
			present |= 1 << uint(i)
			if !need.has(i) {
				dst[j] = skip
			}
			continue
		}
		if h == "" {
			return Problem{File: path, Line: 1, Field: "column " + strconv.Itoa(j+1), Msg: "empty column name in the header"}
		}
		if extraWanted != nil && !extraWanted[h] {
			dst[j] = skip
			continue
		}
		dst[j] = -1
		extras = append(extras, h)
	}
	present |= opt.absent // restored from the path by opt.fill
	// Columns needed only for a check (episode_id; task_success and
	// duplicated for eos) are not required: the check runs when they are
	// there.
	asked := maskOf(opt.Columns)
	var missing []string
	for i, c := range EpisodeColumns {
		// A sparse column the caller names is needed too: a ledger
		// without its group cannot answer for it.
		if (requiredSet.has(i) || sparseCols.has(i) && opt.Columns != nil) && asked.has(i) && !present.has(i) {
			missing = append(missing, c.Name)
		}
	}
	for _, c := range opt.Columns {
		if extraWanted[c] && !seen[c] {
			// As the Parquet reader says it.
			return Problem{File: path, Field: c, Msg: "no such column"}
		}
	}
	if len(missing) > 0 {
		msg := "missing required column"
		if opt.Columns != nil {
			msg = "missing column (needed for this analysis)"
		}
		if len(missing) > 1 {
			msg += " (also missing: " + strings.Join(missing[1:], ", ") + ")"
		}
		return Problem{File: path, Line: 1, Field: missing[0], Msg: msg}
	}
	if opt.Strict && opt.Columns == nil && len(extras) > 0 {
		return Problem{File: path, Line: 1, Field: extras[0]}.strict(extraRejected, "column")
	}
	// Absent columns that are not needed, or that are optional (empty
	// platform, no cost), are not checked.
	check := need & (present | ^requiredSet)
	var ids *idSet
	if check.has(colEpisodeID) {
		ids = opt.newIDs()
	}

	rep := newReporter(path, &opt)
	rows := 0
	lastErrLine := -1
	alloc := episodeAlloc{reuse: opt.Reuse}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			p := csvProblem(path, err).(Problem)
			if p.Line == lastErrLine || opt.Errors == nil {
				return p
			}
			lastErrLine = p.Line
			rows++
			opt.Errors(p)
			continue
		}
		rows++
		line, _ := cr.FieldPos(0)
		if len(rec) != len(hdr) {
			field := "(row)"
			if len(rec) < len(hdr) {
				field = hdr[len(rec)]
			}
			msg := "row has " + strconv.Itoa(len(rec)) + " fields, the header has " + strconv.Itoa(len(hdr))
			if err := rep.add(line, Problem{Field: field, Msg: msg}); err != nil {
				return err
			}
			continue
		}
		e := alloc.next()
		var ps []Problem
		for j, s := range rec {
			if len(s) == 0 && filled[j] {
				ps = append(ps, Problem{Field: hdr[j], Msg: errEmpty})
				continue
			}
			if dst[j] == skip {
				continue
			}
			if i := dst[j]; i >= 0 {
				if msg := setCell(e, i, s); msg != "" {
					ps = append(ps, Problem{Field: hdr[j], Msg: msg})
				}
				continue
			}
			if e.Extra == nil {
				e.Extra = make(map[string]string, len(extras))
			}
			e.Extra[hdr[j]] = strings.Clone(s)
		}
		if opt.fill != nil {
			ps = opt.fill(e, ps)
		}
		if bad, err := rep.row(line, ps); err != nil || bad {
			if err != nil {
				return err
			}
			continue
		}
		if ok, err := checkEpisode(rep, ids, line, e, check); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := fn(e); err != nil {
			return rep.locate(line, err)
		}
	}
	if rows == 0 {
		return Problem{File: path, Msg: "empty ledger: a header but no episodes"}
	}
	return nil
}

// csvProblem turns an encoding/csv error into a Problem with its line.
func csvProblem(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Problem{File: path, Line: pe.StartLine, Field: "(row)", Msg: "malformed CSV: " + pe.Err.Error()}
	}
	return Problem{File: path, Msg: "read: " + errMsg(err)}
}

// CSVHeader returns the header of a CSV ledger and the extra columns in it
// (those not in the schema), in file order, so that export can carry them.
func CSVHeader(path string) (header, extra []string, err error) {
	f, err := openLedger(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	header, err = cr.Read()
	if err == io.EOF {
		return nil, nil, Problem{File: path, Msg: "empty ledger: no header and no episodes"}
	}
	if err != nil {
		return nil, nil, csvProblem(path, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	for _, h := range header {
		if _, ok := colIndex[h]; !ok {
			extra = append(extra, h)
		}
	}
	return header, extra, nil
}
