package paper

import (
	"bytes"
	"encoding/gob"
	"runtime"
	"testing"
)

// TestAnalyzeSerialEqualsParallel checks that building the tables
// concurrently gives the Results of building them one after another.
func TestAnalyzeSerialEqualsParallel(t *testing.T) {
	d := loadSample(t)
	results := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		// gob, not JSON: the cells hold NaN for "no value".
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(Analyze(d, Options{Tools: NativeTools()})); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	serial := results(1)
	for range 3 {
		if par := results(4); string(par) != string(serial) {
			t.Fatal("Analyze on 4 goroutines differs from Analyze on one")
		}
	}
}

// TestRunCallsEveryJob checks run's worker pool: every job once, for any
// number of workers.
func TestRunCallsEveryJob(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5, 20} {
		calls := make([]int, 7)
		jobs := make([]func(), len(calls))
		for k := range jobs {
			jobs[k] = func() { calls[k]++ }
		}
		run(jobs, workers)
		for k, n := range calls {
			if n != 1 {
				t.Errorf("workers %d: job %d ran %d times, want 1", workers, k, n)
			}
		}
	}
}

// TestPairIndex checks the index of Table 10's default episodes against
// a map, with pair_keys shared by several harnesses (the spill) and
// columns not read (code −1).
func TestPairIndex(t *testing.T) {
	keys := [][2]int32{{0, 0}, {1, 0}, {0, 5}, {2, 0}, {-1, -1}, {1, 0}, {0, 0}, {3, 100}, {2, 0}}
	var x pairIndex
	want := map[[2]int32]int{}
	for i, k := range keys {
		x.set(k, i)
		want[k] = i
		for k2, i2 := range want {
			r, ok := x.get(nil, k2)
			if !ok || r.i != i2 {
				t.Fatalf("after %d sets: get(%v) = %d, %v; want %d", i+1, k2, r.i, ok, i2)
			}
		}
	}
	for _, k := range [][2]int32{{5, 0}, {0, 1}, {0, 99}, {0, 1000}, {-1, 0}} {
		if r, ok := x.get(nil, k); ok {
			t.Errorf("get(%v) = %d, want none", k, r.i)
		}
	}
}
