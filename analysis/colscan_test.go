package analysis

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// writeScanLedger writes the sample's episodes reps times (ids, tasks and
// pair keys suffixed, weights varied and not whole, so that sums depend on
// their order) to a Parquet file of several row groups, after edit.
func writeScanLedger(t testing.TB, reps int, edit func(i int, e *ledger.Episode), extra ...string) string {
	t.Helper()
	d := loadSample(t)
	path := filepath.Join(t.TempDir(), "scan.parquet")
	w, err := ledger.CreateEpisodes(path, "", extra)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for r := range reps {
		suf := "~" + strconv.Itoa(r)
		for _, e0 := range d.Episodes() {
			e := *e0
			e.EpisodeID += suf
			e.Task += suf
			if r%2 == 1 { // half the replicates pair across reps
				e.PairKey += suf
			}
			e.Weight = 0.5 + float64(i%7)/3
			if edit != nil {
				edit(i, &e)
			}
			if err := w.Write(&e); err != nil {
				t.Fatal(err)
			}
			i++
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// both runs f on the query by the column scan and by rows and fails
// unless results (or errors) and ledger warnings are the same.
func both[R any](t *testing.T, q Query, f func(Query) (R, error)) {
	t.Helper()
	run := func(rows bool) string {
		var warns []string
		q := q
		q.rowPath = rows
		if f, ok := q.Source.(*table.Files); ok {
			c := *f
			c.Warn = func(p ledger.Problem) { warns = append(warns, p.Error()) }
			q.Source = &c
		}
		r, err := f(q)
		return fmt.Sprintf("%+v\nerr %v\nwarnings %q", r, err, warns)
	}
	col, row := run(false), run(true)
	if col != row {
		t.Errorf("where %q: column scan differs from rows:\n--- columns\n%.2000s\n--- rows\n%.2000s", q.Where, col, row)
	}
}

func TestColumnScanRatesSameAsRows(t *testing.T) {
	path := writeScanLedger(t, 32, nil)
	wheres := []string{"", `experiment == "E2" && fault_fired`, `fault_mode != "none" || !duplicated`,
		"delay_s > 0", `contract == "native" && instance <= 2`, `condition == "nosuch"`}
	specs := []RatesSpec{
		{Outcome: "duplicated", By: []string{"contract", "fault_mode"}, DefaultWeight: true},
		{Outcome: "eos", By: []string{"condition"}},
		{Outcome: "task_success", By: []string{"fault_fired", "model"}, Cluster: "task", DefaultWeight: true},
	}
	// Numeric --by columns are counted on their values by the column scan.
	for _, by := range [][]string{{"instance"}, {"contract", "instance"}, {"instance", "fault_fired", "model"}, {"delay_s"}, {"weight", "contract"}} {
		spec := frame.Spec{Columns: by, Outcome: "eos", Collapse: true}
		if err := frameOnCodes(&Query{Source: &table.Files{Paths: []string{path}}, Where: "fault_fired"}, spec); err != nil {
			t.Fatalf("by %v: the column scan handed over: %v", by, err)
		}
		both(t, Query{Source: &table.Files{Paths: []string{path}}, Where: "fault_fired"}, func(q Query) (*RatesResult, error) {
			return Rates(q, RatesSpec{Outcome: "eos", By: by, DefaultWeight: true})
		})
	}
	if n := scanned(t, path); n <= 2*64*1024 {
		t.Fatalf("the fixture has %d rows; want several row groups", n)
	}
	for _, w := range wheres {
		for _, s := range specs {
			both(t, Query{Source: &table.Files{Paths: []string{path}}, Where: w}, func(q Query) (*RatesResult, error) { return Rates(q, s) })
		}
	}
}

func TestColumnScanModelSameAsRows(t *testing.T) {
	path := writeScanLedger(t, 4, nil)
	for _, fam := range []stats.Family{FamilyLogit, FamilyGEE} {
		s := ModelSpec{Family: fam, Formula: "eos ~ contract + condition", Group: "task"}
		both(t, Query{Source: &table.Files{Paths: []string{path}}, Where: "fault_fired", Weight: "weight"}, func(q Query) (*ModelResult, error) { return Model(q, s) })
	}
}

// A ledger the row reader warns about or rejects is read by rows: the
// same warnings and errors, whatever the column scan would have made of
// it.
func TestColumnScanHandsOverToRows(t *testing.T) {
	cases := map[string]func(i int, e *ledger.Episode){
		"warning": func(i int, e *ledger.Episode) { e.Experiment = "E9" },
		"late warning": func(i int, e *ledger.Episode) {
			if i == 40_000 {
				e.Condition = "custom"
			}
		},
		"duplicate id": func(i int, e *ledger.Episode) {
			if i == 7 || i == 40_007 {
				e.EpisodeID = "same"
			}
		},
		"eos": func(i int, e *ledger.Episode) {
			if i == 20 {
				e.EOS, e.TaskSuccess = true, false
			}
		},
		"empty id": func(i int, e *ledger.Episode) {
			if i == 40_001 {
				e.EpisodeID = ""
			}
		},
		"id not UTF-8": func(i int, e *ledger.Episode) {
			if i == 3 {
				e.EpisodeID = "ep\xff"
			}
		},
	}
	idCase := map[string]bool{"duplicate id": true, "empty id": true, "id not UTF-8": true}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeScanLedger(t, 10, edit)
			// Handed over, or (a duplicate id, found once every batch was
			// out) the row reader's error.
			if _, cols, err := byColumns(&Query{Source: &table.Files{Paths: []string{path}}}, scanCols, nil); cols && err == nil {
				t.Fatalf("the column scan did not hand over")
			}
			// Paired reads episode ids only to check them (in place, not
			// copied): a bad id must hand over all the same.
			if _, cols, err := byColumns(&Query{Source: &table.Files{Paths: []string{path}}}, []string{"pair_key", "condition", "eos"}, []string{"episode_id"}); idCase[name] && cols && err == nil {
				t.Fatalf("the paired column scan did not hand over")
			}
			q := Query{Source: &table.Files{Paths: []string{path}}, Where: "fault_fired"}
			both(t, q, func(q Query) (*RatesResult, error) {
				return Rates(q, RatesSpec{Outcome: "eos", By: []string{"condition", "experiment"}, DefaultWeight: true})
			})
			both(t, q, func(q Query) (*PairedResult, error) {
				return Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}})
			})
		})
	}
}

var scanCols = []string{"episode_id", "condition", "experiment", "contract", "fault_mode", "eos", "weight", "fault_fired"}

// byColumns reads cols of q and reports whether the source handed out
// every row as columns (rather than handing over to the row reader).
func byColumns(q *Query, cols, checked []string) (read int64, columns bool, err error) {
	return byColumnsFeed(q, cols, checked, func(*table.Batch, []int32) error { return nil })
}

// frameOnCodes builds the frame of spec and fails unless every row was
// read as columns and counted on codes.
func frameOnCodes(q *Query, spec frame.Spec) error {
	cols, f := newFrameFeed(spec)
	_, columns, err := byColumnsFeed(q, cols, nil, f.add)
	if err == nil && (!columns || f.byRows > 0) {
		err = fmt.Errorf("%d rows added as rows (columns %v)", f.byRows, columns)
	}
	return err
}

// pairsOnCodes is frameOnCodes for a pairing.
func pairsOnCodes(q *Query, pr *pairReader) error {
	if _, err := q.scanPairs(pr); err != nil {
		return err
	}
	if pr.byRows > 0 {
		return fmt.Errorf("%d rows added as rows", pr.byRows)
	}
	return nil
}

// byColumnsFeed is byColumns that hands the batches to fn.
func byColumnsFeed(q *Query, cols, checked []string, fn func(*table.Batch, []int32) error) (read int64, columns bool, err error) {
	columns = true
	read, err = q.scan(cols, checked, func(b *table.Batch, kept []int32) error {
		columns = columns && b.Vec != nil
		return fn(b, kept)
	})
	return read, columns, err
}

// scanned checks that the column scan reads path (rather than handing
// over to the row path) and returns the rows it read.
func scanned(t *testing.T, path string) int64 {
	t.Helper()
	n, columns, err := byColumns(&Query{Source: &table.Files{Paths: []string{path}}}, scanCols, nil)
	if err != nil || !columns {
		t.Fatalf("column scan: %v (columns %v)", err, columns)
	}
	return n
}

func TestColumnScanPairedSameAsRows(t *testing.T) {
	path := writeScanLedger(t, 16, nil) // two row groups
	scanned(t, path)
	cases := []struct {
		where, weight string
		spec          PairedSpec
	}{
		{`experiment == "E2" && fault_fired`, "", PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}}},
		{"", "weight", PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}}},
		{`fault_mode != "none"`, "", PairedSpec{Outcome: "duplicated", Arm: "contract", Base: "native", PairBy: []string{"model", "pair_key"}, Test: "midp"}},
		{"", "", PairedSpec{Outcome: "eos", Arm: "fault_fired", Base: "true", PairBy: []string{"template"}}},
		// episode_id as a key column is delivered, not only checked.
		{"fault_fired", "", PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"episode_id"}}},
		{"", "weight", PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"model", "pair_key"}}},
	}
	for _, c := range cases {
		both(t, Query{Source: &table.Files{Paths: []string{path}}, Where: c.where, Weight: c.weight}, func(q Query) (*PairedResult, error) { return Paired(q, c.spec) })
	}
}

// rankOneColumn, the shortcut for one pair-by column, ranks keys as the
// general path does (which orders them by the little-endian bytes of their
// level codes, so more than 256 keys exercise the byte order).
func TestRankOneColumnSameAsColumns(t *testing.T) {
	for _, numeric := range []bool{false, true} {
		mk := func() *pairReader {
			r := newPairReader("eos", "condition", []string{"pair_key"}, "")
			r.seen[0], r.kinds[0] = true, ledger.KindString
			for i := range 3000 {
				k := fmt.Sprintf("k%05d", (i*7919)%1000)
				if numeric {
					k = strconv.Itoa((i * 7919) % 1000)
				}
				r.buf = appendText(r.buf[:0], &ledger.Vec{Dict: []string{k}, Codes: []int32{0}}, 0)
				r.key = append(r.key, r.keys.id(r.buf))
			}
			return r
		}
		one, all := mk(), mk()
		one.rankKeys()
		all.keys.release()
		all.rankColumns(all.keys.len())
		if fmt.Sprint(one.key) != fmt.Sprint(all.key) {
			t.Errorf("numeric %v: ranks differ", numeric)
		}
	}
}

// Extra (user) text columns are read by the column scan, as --by, --arm,
// --pair-by and --where columns; an empty value (a missing one to the row
// reader) hands over to the row path.
func TestColumnScanExtraColumns(t *testing.T) {
	lab := func(i int, e *ledger.Episode) {
		e.Extra = map[string]string{"lab": "lab-" + strconv.Itoa(i%3), "site": strconv.Itoa(i % 5)}
	}
	path := writeScanLedger(t, 4, lab, "lab", "site")
	spec := frame.Spec{Columns: []string{"lab", "contract"}, Outcome: "duplicated", Collapse: true}
	if err := frameOnCodes(&Query{Source: &table.Files{Paths: []string{path}}, Where: `site != "3"`}, spec); err != nil {
		t.Fatalf("the column scan handed over: %v", err)
	}
	if err := pairsOnCodes(&Query{Source: &table.Files{Paths: []string{path}}}, newPairReader("eos", "lab", []string{"template", "site"}, "")); err != nil {
		t.Fatalf("the paired column scan handed over: %v", err)
	}
	for _, where := range []string{"", `site != "3" && fault_fired`, `lab == "lab-1"`} {
		q := Query{Source: &table.Files{Paths: []string{path}}, Where: where}
		both(t, q, func(q Query) (*RatesResult, error) {
			return Rates(q, RatesSpec{Outcome: "duplicated", By: []string{"lab", "contract"}, DefaultWeight: true})
		})
		both(t, q, func(q Query) (*PairedResult, error) {
			return Paired(q, PairedSpec{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key", "lab"}})
		})
		both(t, q, func(q Query) (*PairedResult, error) {
			return Paired(q, PairedSpec{Outcome: "eos", Arm: "lab", Base: "lab-0", PairBy: []string{"template"}})
		})
	}
	// A missing extra value, a column the file lacks, one listed as an
	// outcome: the row path's results and messages.
	gap := writeScanLedger(t, 2, func(i int, e *ledger.Episode) {
		lab(i, e)
		if i == 5 {
			e.Extra["lab"] = ""
		}
	}, "lab", "site")
	if err := frameOnCodes(&Query{Source: &table.Files{Paths: []string{gap}}}, spec); err == nil {
		t.Fatalf("an empty extra value did not hand over")
	}
	for _, by := range [][]string{{"lab"}, {"nosuch"}} {
		both(t, Query{Source: &table.Files{Paths: []string{gap}}}, func(q Query) (*RatesResult, error) {
			return Rates(q, RatesSpec{Outcome: "duplicated", By: by})
		})
	}
	both(t, Query{Source: &table.Files{Paths: []string{path}}}, func(q Query) (*RatesResult, error) {
		return Rates(q, RatesSpec{Outcome: "site", By: []string{"lab"}})
	})
}

// A frame of a held Data takes the Data's dictionaries and codes for its
// text columns (frame.Builder.Share: no text interned again), over several
// batches, and is the frame the row path builds: the same levels, cells
// and sums. A frame of a Parquet file does not keep its batches'
// dictionaries.
func TestHeldFrameSharesCodes(t *testing.T) {
	path := writeScanLedger(t, 40, nil) // more rows than one batch of a Data
	d, err := table.Read(path, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() <= 1<<16 {
		t.Fatalf("%d rows: one batch only", d.Len())
	}
	spec := frame.Spec{Columns: []string{"task", "contract", "fault_fired"}, Outcome: "duplicated", Weight: "weight", Collapse: true}
	q := Query{Source: table.Held(d, nil), Where: `fault_mode != "none" && contract != "native"`}
	cols, f := newFrameFeed(spec)
	if _, err := q.scan(cols, nil, f.add); err != nil {
		t.Fatal(err)
	}
	if !f.coders[0].shared || !f.coders[1].shared || f.coders[2].shared || f.byRows > 0 {
		t.Errorf("shared task %v contract %v fault_fired %v, %d rows as rows; want true true false 0",
			f.coders[0].shared, f.coders[1].shared, f.coders[2].shared, f.byRows)
	}
	// A Parquet file's batches are valid during the call only: their
	// dictionaries are interned, not shared.
	fcols, ff := newFrameFeed(spec)
	if _, err := (&Query{Source: &table.Files{Paths: []string{path}}, Where: q.Where}).scan(fcols, nil, ff.add); err != nil {
		t.Fatal(err)
	}
	if ff.coders[0].shared || ff.coders[1].shared || ff.byRows > 0 {
		t.Errorf("a Parquet file's batches: shared task %v contract %v, %d rows as rows; want false false 0",
			ff.coders[0].shared, ff.coders[1].shared, ff.byRows)
	}
	got := f.b.Frame()
	rq := q
	rq.rowPath = true
	want, err := rq.buildFrame(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Cells, want.Cells) || got.Rows != want.Rows {
		t.Errorf("cells differ from the row path's (%d rows, want %d)", got.Rows, want.Rows)
	}
	for j := range want.Cols {
		// As text: LevelNum holds NaNs, which DeepEqual finds unequal.
		if g, w := fmt.Sprintf("%+v", got.Cols[j]), fmt.Sprintf("%+v", want.Cols[j]); g != w {
			t.Errorf("column %s:\n%.300s\nwant (rows)\n%.300s", want.Cols[j].Name, g, w)
		}
	}
}

// A pairing on one key column of a held Data maps the Data's codes to
// keys once per code, across batches, and pairs as the row path does.
func TestHeldPairedSameAsRows(t *testing.T) {
	d, err := table.Read(writeScanLedger(t, 40, nil), ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []PairedSpec{
		{Outcome: "eos", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}},
		{Outcome: "duplicated", Arm: "contract", Base: "native", PairBy: []string{"pair_key"}, Test: "midp"},
	} {
		for _, weight := range []string{"", "weight"} {
			q := Query{Source: table.Held(d, nil), Where: "fault_fired", Weight: weight}
			got, err := Paired(q, spec)
			if err != nil {
				t.Fatal(err)
			}
			q.rowPath = true
			want, err := Paired(q, spec)
			if err != nil {
				t.Fatal(err)
			}
			// As text: results hold NaNs, which DeepEqual finds unequal.
			if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
				t.Errorf("%+v weight %q:\n%.400s\nwant (rows)\n%.400s", spec, weight, g, w)
			}
		}
	}
}
