package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeNotRun lists the README's Usage commands this test does not run,
// with why.
var readmeNotRun = map[string]string{
	"./limbo-analyze view out/run.parquet --serve 127.0.0.1:8080": "serves until Ctrl-C (view's server is tested in report/view)",
}

// readmeFaster replaces, for the test's time, the number of replications
// of the power commands: what they print is not compared, only that they
// run.
var readmeFaster = map[string]string{
	"--reps 200 --out out/power":            "--reps 2 --out out/power",
	"--pilot out/run.parquet --sizes 1,2,4": "--pilot out/run.parquet --sizes 1,2,4 --reps 2",
}

// readmeSetup makes the files a Usage command reads that no earlier
// command writes: the two ledgers gate compares (the same plan and agents:
// the gate passes).
var readmeSetup = []string{
	"./limbo-analyze simulate --seed 1 --shard 1/16 --out runs/baseline.jsonl",
	"./limbo-analyze simulate --seed 1 --shard 1/16 --out runs/candidate.jsonl",
}

var readmeInline = regexp.MustCompile("`(\\./limbo-analyze [^`]+)`")

// readmeUsage returns the commands of the README's Usage section, in
// order: every line of its sh blocks and the inline `./limbo-analyze …`
// commands of its prose.
func readmeUsage(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, usage, ok := strings.Cut(string(b), "\n## Usage\n")
	if !ok {
		t.Fatal("README.md has no Usage section")
	}
	usage, _, _ = strings.Cut(usage, "\n### Your own ledgers\n")
	var cmds []string
	inSh := false
	for _, l := range strings.Split(usage, "\n") {
		switch {
		case l == "```sh":
			inSh = true
		case strings.HasPrefix(l, "```"):
			inSh = false
		case inSh:
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				cmds = append(cmds, l)
			}
		default:
			for _, m := range readmeInline.FindAllStringSubmatch(l, -1) {
				cmds = append(cmds, m[1])
			}
		}
	}
	return cmds
}

// TestReadmeUsage runs every command of the README's Usage section in
// order, as a shell in a fresh clone does (the binary built by the
// section's own first command), and checks that each succeeds. Its two
// builds (limbo-analyze and the scripted harness) dominate a cold run.
func TestReadmeUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the README's whole Usage section")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the binary with")
	}
	cmds := readmeUsage(t)
	if len(cmds) < 20 || !strings.HasPrefix(cmds[0], "go build -o limbo-analyze ") {
		t.Fatalf("README Usage: %d commands, the first %q; want the build first", len(cmds), cmds)
	}
	dir := workDir(t)
	run := func(line string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", line)
		c.Dir = dir
		start := time.Now()
		out, err := c.CombinedOutput()
		if err != nil {
			t.Errorf("README: %s: %v\n%s", line, err, out)
			return
		}
		t.Logf("%4.1fs %s", time.Since(start).Seconds(), line)
	}
	for i, line := range cmds {
		cmd, _, _ := strings.Cut(line, " #")
		cmd = strings.TrimSpace(cmd)
		if why, ok := readmeNotRun[cmd]; ok {
			t.Logf("not run: %s: %s", cmd, why)
			continue
		}
		for from, to := range readmeFaster {
			cmd = strings.Replace(cmd, from, to, 1)
		}
		if strings.HasPrefix(cmd, "./limbo-analyze gate ") {
			for _, s := range readmeSetup {
				run(s)
			}
		}
		run(cmd)
		if i == 0 && t.Failed() {
			t.FailNow() // no binary
		}
	}
	checkReadmeTable3(t, dir)
}

// readmeTable3 is the README's claim that rates with the table's clusters
// and scope gives a column of Table 3: the command, then the figures.
var readmeTable3 = regexp.MustCompile("`rates (--outcome[^`]+)` gives Table 3's redelivery column \\(n_eff ([0-9.]+), ([0-9]+) \\[([0-9]+),([0-9]+)\\] for ([^)]+)\\)")

// checkReadmeTable3 runs the README's rates example on the run its Usage
// section simulated and checks the figures the README quotes.
func checkReadmeTable3(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeTable3.FindStringSubmatch(strings.Join(strings.Fields(string(b)), " "))
	if m == nil {
		t.Fatal("README.md: the rates example that gives Table 3's redelivery column is gone or reworded: update the test")
	}
	args, err := splitShell("rates --in out/run.parquet --format csv " + m[1])
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("./limbo-analyze", args...)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("README: rates %s: %v", m[1], err)
	}
	// CSV: a header, then one row per level.
	rows := strings.Split(strings.TrimSpace(string(out)), "\n")
	head := strings.Split(rows[0], ",")
	col := func(name string) int { return slices.Index(head, name) }
	for _, r := range rows[1:] {
		f := strings.Split(r, ",")
		if !slices.Contains(f, m[6]) {
			continue
		}
		num := func(name string) float64 {
			if col(name) < 0 {
				t.Fatalf("rates CSV has no column %q: %s", name, rows[0])
			}
			v, err := strconv.ParseFloat(f[col(name)], 64)
			if err != nil {
				t.Fatalf("rates CSV %s: %v", name, err)
			}
			return v
		}
		got := []string{
			strconv.FormatFloat(num("n_eff"), 'f', 1, 64),
			strconv.Itoa(int(math.Round(100 * num("p")))),
			strconv.Itoa(int(math.Round(100 * num("lo")))),
			strconv.Itoa(int(math.Round(100 * num("hi")))),
		}
		if want := m[2:6]; !slices.Equal(got, want) {
			t.Errorf("README: rates %s: %s: n_eff, rate, lo, hi = %v; the README says %v", m[1], m[6], got, want)
		}
		// "agree exactly": Table 3 with one ICC per column prints the same
		// cell; its default (pooled) prints the figures the README quotes.
		for _, icc := range []struct{ flag, quoted string }{{"per-column", strings.Join(m[2:6], " ")}, {"pooled", pooledCell(t, string(b))}} {
			if got := table3Cell(t, dir, icc.flag, m[6]); got != icc.quoted {
				t.Errorf("README: tables --table 3 --icc %s: %s redelivery: n_eff, rate, lo, hi = %s; the README says %s", icc.flag, m[6], got, icc.quoted)
			}
		}
		return
	}
	t.Errorf("README: rates %s: no row for %s:\n%s", m[1], m[6], out)
}

// readmePooled is the README's figures for the same cell under Table 3's
// default ICC.
var readmePooled = regexp.MustCompile(`prints the same cell as ([0-9]+) \[([0-9]+),([0-9]+)\] \(n_eff ([0-9.]+)\)`)

// pooledCell returns the README's pooled figures as "n_eff rate lo hi".
func pooledCell(t *testing.T, readme string) string {
	t.Helper()
	m := readmePooled.FindStringSubmatch(strings.Join(strings.Fields(readme), " "))
	if m == nil {
		t.Fatal("README.md: the figures of Table 3's pooled ICC are gone or reworded: update the test")
	}
	return strings.Join([]string{m[4], m[1], m[2], m[3]}, " ")
}

// table3Cell returns Table 3's redelivery cell of model as "n_eff rate lo
// hi", rounded as the README quotes them, from tables --format csv.
func table3Cell(t *testing.T, dir, icc, model string) string {
	t.Helper()
	c := exec.Command("./limbo-analyze", "tables", "--in", "out/run.parquet", "--table", "3", "--icc", icc, "--format", "csv")
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		t.Fatalf("tables --icc %s: %v", icc, err)
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("tables --icc %s --format csv: %v", icc, err)
	}
	head := rows[0]
	for _, f := range rows[1:] {
		if f[slices.Index(head, "row")] != model || f[slices.Index(head, "column")] != "dup_redelivery" {
			continue
		}
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(f[slices.Index(head, name)], 64)
			if err != nil {
				t.Fatalf("tables CSV %s: %v", name, err)
			}
			return v
		}
		return strings.Join([]string{strconv.FormatFloat(num("n_eff"), 'f', 1, 64), strconv.Itoa(int(math.Round(num("value")))),
			strconv.Itoa(int(math.Round(num("lo")))), strconv.Itoa(int(math.Round(num("hi"))))}, " ")
	}
	t.Fatalf("tables --icc %s: no redelivery cell for %s", icc, model)
	return ""
}
