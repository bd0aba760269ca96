package analysis

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// cliLedger is the CLI's small generated ledger (cmd/limbo-analyze's
// cliEpisodes): pair-by keys with several episodes per arm, unmatched
// episodes, weights 1 and 2.
var cliLedger = filepath.Join("..", "testdata", "cli", "episodes.csv")

// TestPairingStreamEqualsFrame checks the streaming pair index of paired
// against the frame-based one (tost's) on the CLI ledger, including pair-by
// keys with several episodes per arm, where episode ids decide the
// matching: the 2×2 tables must be identical.
func TestPairingStreamEqualsFrame(t *testing.T) {
	for _, tc := range []struct {
		pairBy         []string
		arm, weight    string
		where          string
		base           string
		levels         []string
		wantSeveralArm bool // some key holds several episodes of one arm
	}{
		{[]string{"pair_key", "contract"}, "condition", "", "", "vanilla", nil, false},
		{[]string{"pair_key", "contract"}, "condition", "weight", "", "guard", nil, false},
		{[]string{"contract"}, "condition", "weight", "", "vanilla", nil, true},
		{[]string{"contract"}, "condition", "", "", "aware", []string{"vanilla"}, true},
		{[]string{"model", "fault_mode"}, "contract", "", `condition != "aware"`, "native", nil, true},
		{[]string{"episode_id"}, "condition", "", "", "vanilla", nil, false},
	} {
		name := strings.Join(tc.pairBy, ",") + " " + tc.arm + " " + tc.weight
		q := Query{Source: &table.Files{Paths: []string{cliLedger}}, Where: tc.where}
		var w1, w2 warnings
		got, err := q.readPairing("duplicated", tc.arm, tc.pairBy, tc.weight, tc.base, tc.levels, &w1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fr, err := q.readFrame(pairSpec("duplicated", tc.arm, tc.pairBy, tc.weight), &w2)
		if err != nil {
			t.Fatal(err)
		}
		want := newPairing(fr, tc.pairBy, tc.arm)
		if !slices.Equal(got.arm.Levels, want.arm.Levels) || !slices.Equal(w1.items(), w2.items()) {
			t.Fatalf("%s: levels %v warnings %v; frame: %v %v", name, got.arm.Levels, w1.items(), want.arm.Levels, w2.items())
		}
		several := false
		for k := range len(got.seg) - 1 {
			for i := got.seg[k] + 1; i < got.seg[k+1]; i++ {
				several = several || got.armOf[i] == got.armOf[i-1]
			}
		}
		if several != tc.wantSeveralArm {
			t.Errorf("%s: several episodes per arm and key = %v, want %v", name, several, tc.wantSeveralArm)
		}
		// Only the compared arms are matched in id order.
		l1 := int32(slices.Index(got.arm.Levels, tc.base))
		for l2 := range int32(len(got.arm.Levels)) {
			if l2 == l1 || len(tc.levels) > 0 && !slices.Contains(tc.levels, got.arm.Levels[l2]) {
				continue
			}
			{
				g, w := got.table(l1, l2), want.table(l1, l2)
				if r := refPairTable(fr, tc.pairBy, tc.arm, l1, l2); g != w || g != r {
					t.Errorf("%s: levels %d vs %d: stream %+v, frame %+v, reference %+v", name, l1, l2, g, w, r)
				}
			}
		}
	}
}

// refPairTable is the straightforward matching: a map from key to arm to
// episodes sorted by id, keys in sorted order.
func refPairTable(fr *frame.Frame, pairBy []string, arm string, l1, l2 int32) pairTable {
	by := map[string]map[int32][]int{}
	for i := range fr.Len() {
		var key []byte
		for _, c := range pairBy {
			code := fr.Col(c).Codes[i]
			key = append(key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		if by[string(key)] == nil {
			by[string(key)] = map[int32][]int{}
		}
		a := fr.Col(arm).Codes[i]
		by[string(key)][a] = append(by[string(key)][a], i)
	}
	id := fr.Col("episode_id")
	var t pairTable
	for _, k := range slices.Sorted(maps.Keys(by)) {
		r1, r2 := by[k][l1], by[k][l2]
		for _, r := range [][]int{r1, r2} {
			slices.SortStableFunc(r, func(x, y int) int { return strings.Compare(id.Level(x), id.Level(y)) })
		}
		n := min(len(r1), len(r2))
		t.unmatched1 += len(r1) - n
		t.unmatched2 += len(r2) - n
		for i := range n {
			c1, c2 := fr.Cells[r1[i]], fr.Cells[r2[i]]
			w := c1.SumW
			switch {
			case c1.Events == 1 && c2.Events == 1:
				t.a++
				t.wa += w
			case c1.Events == 1:
				t.b++
				t.wb += w
			case c2.Events == 1:
				t.c++
				t.wc += w
			default:
				t.d++
				t.wd += w
			}
		}
	}
	return t
}

// TestPairKeyCollision forces two keys onto one hash: they must keep
// distinct ids.
func TestPairKeyCollision(t *testing.T) {
	r := newPairReader("y", "arm", []string{"k"}, "")
	a, b := []byte("\x01a"), []byte("\x01b")
	const h = 12345 // one hash for both keys
	for range 2 {
		if ida, idb := r.keys.idHash(a, h), r.keys.idHash(b, h); ida != 0 || idb != 1 {
			t.Errorf("ids a %d, b %d; want 0, 1", ida, idb)
		}
	}
	if string(keyField(r.keys.at(1), 0)) != "b" {
		t.Errorf("key 1 = %q", r.keys.at(1))
	}
}

// newPairing indexes the rows of a frame (pairSpec) by pair-by key and
// arm level: the frame-based reference the streaming readPairing is
// checked against.
func newPairing(fr *frame.Frame, pairBy []string, arm string) *pairing {
	cols := make([]*frame.Column, len(pairBy))
	for j, c := range pairBy {
		cols[j] = fr.Col(c)
	}
	ids := map[string]uint32{}
	var keys []string
	key := make([]byte, 0, 4*len(cols))
	r := pairRows{n: fr.Len(), key: make([]uint32, fr.Len()), arm: fr.Col(arm).Codes}
	for i := range fr.Len() {
		key = key[:0]
		for _, c := range cols {
			code := c.Codes[i]
			key = append(key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		k, ok := ids[string(key)]
		if !ok {
			k = uint32(len(keys))
			ids[string(key)] = k
			keys = append(keys, string(key))
		}
		r.key[i] = k
	}
	r.nKeys = len(keys)
	rankKeys(r.key, keys)
	r.event = func(i int) bool { return fr.Cells[i].Events == 1 }
	if fr.HasWeight {
		r.weight = func(i int) float64 { return fr.Cells[i].SumW }
	}
	id := fr.Col("episode_id")
	r.cmpID = func(a, b int) int { return strings.Compare(id.Level(a), id.Level(b)) }
	return buildPairing(fr.Col(arm), r)
}

// TestKeyTableGrows numbers many keys across several growths of the
// table: ids in order of first appearance, each found again, bytes kept.
func TestKeyTableGrows(t *testing.T) {
	tb := newKeyTable()
	const n = 50_000
	key := func(i int) []byte {
		return appendText(nil, &ledger.Vec{Dict: []string{fmt.Sprintf("key-%d", i)}, Codes: []int32{0}}, 0)
	}
	for pass := range 2 {
		for i := range n {
			if id := tb.id(key(i)); id != uint32(i) {
				t.Fatalf("pass %d: key %d has id %d", pass, i, id)
			}
		}
	}
	if tb.len() != n {
		t.Fatalf("%d keys, want %d", tb.len(), n)
	}
	if got := string(keyField(tb.at(n-1), 0)); got != fmt.Sprintf("key-%d", n-1) {
		t.Errorf("last key %q", got)
	}
}
