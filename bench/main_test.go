package main

import (
	"strings"
	"testing"
)

// Lines in the format `go test -bench -benchmem` prints (testing package
// documentation), with custom metrics from b.ReportMetric.
func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkCLIRates-2   	      10	  52345678 ns/op	    495367 rows/s	  40.5 cpu-ms/op	 1234567 B/op	   23456 allocs/op
BenchmarkParquetReadAll-2	 5	 2.5e+07 ns/op	 45.20 MB/s	 100 B/op	 3 allocs/op
BenchmarkFitLogitCrossed/factors-2         	       3	 401234567 ns/op
PASS
`
	got := parseBench("./x", strings.NewReader(out))
	if len(got) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(got), got)
	}
	for _, c := range []struct {
		i           int
		name, stage string
		n           int64
		unit        string
		value       float64
	}{
		{0, "CLIRates", "rates", 10, "rows/s", 495367},
		{0, "CLIRates", "rates", 10, "allocs/op", 23456},
		{1, "ParquetReadAll", "read", 5, "MB/s", 45.2},
		{1, "ParquetReadAll", "read", 5, "ns/op", 2.5e7},
		{2, "FitLogitCrossed/factors", "glmm", 3, "ns/op", 401234567},
	} {
		r := got[c.i]
		if r.name != c.name || r.stage != c.stage || r.n != c.n || r.metrics[c.unit] != c.value {
			t.Errorf("result %d = %s %s %d %v; want %s %s %d %s=%v", c.i, r.name, r.stage, r.n, r.metrics, c.name, c.stage, c.n, c.unit, c.value)
		}
	}
	var b strings.Builder
	summary(&b, got, "## t")
	if !strings.Contains(b.String(), "| rates | x | CLIRates | 52.35 | 40.50 | 495367 |") {
		t.Errorf("summary:\n%s", b.String())
	}
}

func TestStageOf(t *testing.T) {
	for name, want := range map[string]string{
		"PaperDesign": "simulate", "Episode12Calls": "grade", "Grade": "grade", "CSVToParquet": "export",
		"RawJSONLRead": "read", "GEEExchangeableFactors": "gee", "LogisticNumeric": "logit",
		"CLIModelGLMM": "glmm", "CLIModelLogit": "logit", "Exact4Groups": "shapley",
		"TablesAndHypotheses": "tables", "Analyze": "tables", "Report": "figures", "CLIPaired": "paired",
	} {
		if got := stageOf(name); got != want {
			t.Errorf("stageOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestKeptTail(t *testing.T) {
	cases := []struct{ old, want string }{
		{"## Benchmarks\n| a |\n", ""},
		{"## Benchmarks\n| a |\n\n" + keptMarker + "\n## Whole process\nx\n", "\n" + keptMarker + "\n## Whole process\nx\n"},
	}
	for _, c := range cases {
		if got := string(keptTail([]byte(c.old))); got != c.want {
			t.Errorf("keptTail(%q) = %q, want %q", c.old, got, c.want)
		}
	}
}
