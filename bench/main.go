package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/limbo-toolkit/limbo/outfile"
)

// suite is one package's benchmarks; stage maps a benchmark name to the
// pipeline stage it measures.
type suite struct {
	pkg   string
	bench string // -bench regexp
}

var suites = []suite{
	{"./cmd/limbo-analyze", "PaperDesign|CLI|TablesAndHypotheses|Report"},
	{"./sandbox", "."},
	{"./ledger", "."},
	{"./stats", "."},
	{"./mixed", "."},
	{"./shapley", "."},
	{"./analysis", "."},
}

// stages assigns benchmarks to stages by name, first match wins, and
// orders the summary.
var stages = []struct {
	stage string
	re    *regexp.Regexp
}{
	{"simulate", regexp.MustCompile(`PaperDesign|Million`)},
	{"grade", regexp.MustCompile(`Episode\d+Calls|^Grade`)},
	{"export", regexp.MustCompile(`ToParquet`)},
	{"read", regexp.MustCompile(`Read`)},
	{"rates", regexp.MustCompile(`Rates|WilsonKish`)},
	{"paired", regexp.MustCompile(`Paired`)},
	{"shapley", regexp.MustCompile(`Shapley|Exact\d+Groups`)},
	{"logit", regexp.MustCompile(`Logit$|Logistic|Gram`)},
	{"gee", regexp.MustCompile(`GEE`)},
	{"glmm", regexp.MustCompile(`GLMM|FitLogit`)},
	{"tables", regexp.MustCompile(`Analyze|Tables`)},
	{"figures", regexp.MustCompile(`Report`)},
}

func stageOf(name string) string {
	for _, s := range stages {
		if s.re.MatchString(name) {
			return s.stage
		}
	}
	return "other"
}

// result is one parsed benchmark line.
type result struct {
	pkg, name, stage string
	n                int64
	metrics          map[string]float64 // unit → value
}

var benchLine = regexp.MustCompile(`^(Benchmark[^\s]+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// parseBench reads `go test -bench` output and returns its results.
func parseBench(pkg string, r io.Reader) []result {
	var out []result
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.ParseInt(m[3], 10, 64)
		res := result{pkg: pkg, name: strings.TrimPrefix(m[1], "Benchmark"), n: n, metrics: map[string]float64{}}
		f := strings.Fields(m[4])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				res.metrics[f[i+1]] = v
			}
		}
		res.stage = stageOf(res.name)
		out = append(out, res)
	}
	return out
}

// fmtNum renders a metric compactly, "" when absent.
func fmtNum(m map[string]float64, unit string) string {
	v, ok := m[unit]
	if !ok {
		return ""
	}
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// summary writes the Markdown table, in stage order.
func summary(w io.Writer, results []result, header string) {
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, "| stage | package | benchmark | ms/op | CPU ms/op | rows/s | MB/s | B/op | allocs/op |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|")
	for _, st := range append(stagesNames(), "other") {
		for _, r := range results {
			if r.stage != st {
				continue
			}
			rows := fmtNum(r.metrics, "rows/s")
			if rows == "" {
				rows = fmtNum(r.metrics, "episodes/s")
			}
			if rows == "" {
				if rows = fmtNum(r.metrics, "rows/cpu-s"); rows != "" {
					rows += " per CPU-s"
				}
			}
			ms := map[string]float64{}
			if ns, ok := r.metrics["ns/op"]; ok {
				ms["ms/op"] = ns / 1e6
			}
			cpu := fmtNum(r.metrics, "cpu-ms/op")
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.stage, strings.TrimPrefix(r.pkg, "./"), r.name,
				fmtNum(ms, "ms/op"), cpu, rows, fmtNum(r.metrics, "MB/s"), fmtNum(r.metrics, "B/op"), fmtNum(r.metrics, "allocs/op"))
		}
	}
}

func stagesNames() []string {
	var s []string
	for _, x := range stages {
		s = append(s, x.stage)
	}
	return s
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func main() {
	benchtime := flag.String("benchtime", "300ms", "go test -benchtime")
	out := flag.String("out", "bench/RESULTS.md", "summary file (Markdown); empty for stdout only")
	only := flag.String("stages", "", "comma-separated stages to run (default all)")
	flag.Parse()
	if err := run(*benchtime, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(benchtime, out, only string) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run from the repository root (no go.mod here)")
	}
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s != "" {
			want[s] = true
		}
	}
	tmp, err := os.MkdirTemp("", "limbo-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// One simulated paper ledger for the CLI and analysis benchmarks.
	la := filepath.Join(tmp, "limbo-analyze")
	if err := command(os.Stderr, "go", "build", "-o", la, "./cmd/limbo-analyze"); err != nil {
		return err
	}
	eps := filepath.Join(tmp, "paper.parquet")
	graded := filepath.Join(tmp, "paper.graded.jsonl")
	if err := command(io.Discard, la, "simulate", "--out", filepath.Join(tmp, "paper.jsonl"), "--episodes", eps); err != nil {
		return err
	}
	if err := command(io.Discard, la, "export", "--in", eps, "--out", graded); err != nil {
		return err
	}

	start := time.Now().UTC()
	load0 := loadavg()
	var results []result
	var failed []string
	for _, s := range suites {
		re := s.bench
		fmt.Fprintf(os.Stderr, "== %s (-bench '%s' -benchtime %s)\n", s.pkg, re, benchtime)
		var buf bytes.Buffer
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", re, "-benchtime", benchtime, "-benchmem", "-short", s.pkg)
		cmd.Env = append(os.Environ(), "LIMBO_BENCH_EPISODES="+eps, "LIMBO_BENCH_LEDGER="+graded)
		cmd.Stdout = io.MultiWriter(&buf, os.Stderr)
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		for _, r := range parseBench(s.pkg, &buf) {
			if len(want) == 0 || want[r.stage] {
				results = append(results, r)
			}
		}
		if err != nil {
			failed = append(failed, s.pkg)
		}
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	host, _ := os.Hostname()
	header := fmt.Sprintf("## Benchmarks, %s\n\nMachine: %s, %d CPUs (%s/%s), host %s; %s; load average %s at start, %s at end; -benchtime %s. "+
		"Generated by `go run ./bench`. The CLI benchmarks run each command in-process on the paper's 25,930 simulated episodes (Parquet).\n",
		start.Format("2006-01-02 15:04 UTC"), cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, host,
		strings.TrimSpace(string(goVersion)), load0, loadavg(), benchtime)
	if len(failed) > 0 {
		header += fmt.Sprintf("\nFailed or incomplete packages: %s.\n", strings.Join(failed, ", "))
	}
	var md bytes.Buffer
	summary(&md, results, header)
	os.Stdout.Write(md.Bytes())
	if out != "" {
		// Hand-recorded measurements (whole-process runs, DuckDB ratios)
		// below the kept marker survive a regeneration of the table.
		if old, err := os.ReadFile(out); err == nil {
			md.Write(keptTail(old))
		}
		if err := writeAtomic(out, md.Bytes()); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("benchmarks failed in %s", strings.Join(failed, ", "))
	}
	return nil
}

func command(stdout io.Writer, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout = stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// writeAtomic writes path through the toolkit's one atomic-output helper.
// keptMarker starts the part of the results file that go run ./bench
// keeps as it is.
const keptMarker = "<!-- kept by go run ./bench: measurements recorded by hand below -->"

// keptTail returns the part of a results file from keptMarker on (with a
// blank line before it), or nothing.
func keptTail(old []byte) []byte {
	i := bytes.Index(old, []byte(keptMarker))
	if i < 0 {
		return nil
	}
	return append([]byte("\n"), old[i:]...)
}

func writeAtomic(path string, data []byte) error { return outfile.WriteFile(path, data) }
