// Package ledgertest holds the ledger test data that the tests of several
// packages build (analysis, analysis/table, analysis/prereg,
// cmd/limbo-analyze), so that each test package does not carry its own
// copy. It is imported by tests only, and imports only ledger and the
// standard library, so that it can never form an import cycle with the
// engine packages whose tests use it.
package ledgertest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Widen replaces each of eps by a copy whose columns outgrow every narrow
// code of the column store: more than 256 distinct strings, floats and
// integers once len(eps) > 256, integers beyond int32, a cost on some
// episodes only, an extra column on some, and a delay of −0 on the second.
// The episodes eps pointed to are not changed; eps is returned.
func Widen(eps []*ledger.Episode) []*ledger.Episode {
	for i, e := range eps {
		c := *e
		c.PairKey = fmt.Sprintf("pk-%d", i)
		c.AgentTimeS = float64(i) / 7
		c.Seed = 1 << 40
		c.ToolCalls = int64(i)              // int32 after 256 values
		c.FocalCommits = int64(i%300) << 33 // int64 after 256 values
		if i%3 == 0 {
			x := float64(i) / 100
			c.CostUSD = &x
		} else {
			c.CostUSD = nil
		}
		if i%5 == 0 {
			c.Extra = map[string]string{"site": fmt.Sprint("s", i%2)}
		}
		if i == 1 {
			c.DelayS = math.Copysign(0, -1) // -0 stays apart from 0
		}
		eps[i] = &c
	}
	return eps
}

// WriteParquet writes eps to a Parquet ledger at path, without their extra
// columns (a CSV's); eps are not changed. Any failure is fatal.
func WriteParquet(t testing.TB, path string, eps []*ledger.Episode) {
	t.Helper()
	w, err := ledger.CreateEpisodes(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		c := *e
		c.Extra = nil
		if err := w.Write(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// ReadEpisodes reads the ledger at path into episodes, ignoring its
// warnings; any error is fatal.
func ReadEpisodes(t testing.TB, path string) []*ledger.Episode {
	t.Helper()
	var eps []*ledger.Episode
	err := ledger.ReadEpisodes(path, ledger.ReadOptions{Warn: func(ledger.Problem) {}}, func(e *ledger.Episode) error {
		c := *e
		eps = append(eps, &c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// UnderflowCSV writes, into a fresh t.TempDir(), a CSV ledger built from
// the first row of the CSV ledger at src, and returns its path. It holds
// nPairs pair keys with one vanilla episode without a duplicate and one
// guard episode with one (b = 0, c = nPairs against vanilla), plus nAware
// pair keys where aware duplicates and vanilla does not. The exact McNemar
// p-value of vanilla against guard is 2·2^−nPairs, which underflows
// float64 from nPairs ≈ 1075 on. Any failure is fatal.
func UnderflowCSV(t testing.TB, src string, nPairs, nAware int) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(raw))
	head, err := r.Read()
	if err != nil {
		t.Fatal(fmt.Errorf("%s: header: %w", src, err))
	}
	tmpl, err := r.Read()
	if err != nil {
		t.Fatal(fmt.Errorf("%s: first row: %w", src, err))
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(head); err != nil {
		t.Fatal(err)
	}
	id := 0
	add := func(key, cond string, dup bool) {
		rec := append([]string(nil), tmpl...)
		id++
		rec[col["episode_id"]] = "ep" + strconv.Itoa(id)
		rec[col["pair_key"]] = key
		rec[col["condition"]] = cond
		rec[col["duplicated"]] = strconv.FormatBool(dup)
		rec[col["eos"]] = strconv.FormatBool(!dup)
		rec[col["focal_commits"]] = "1"
		if dup {
			rec[col["focal_commits"]] = "2"
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for k := range nPairs {
		key := "g" + strconv.Itoa(k)
		add(key, "vanilla", false)
		add(key, "guard", true)
	}
	for k := range nAware {
		key := "a" + strconv.Itoa(k)
		add(key, "vanilla", false)
		add(key, "aware", true)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "underflow.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
