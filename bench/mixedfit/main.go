// Command mixedfit fits one mixed model from a CSV file with package
// mixed, as a whole process, for bench/lme4.sh to time against lme4 on the
// same file. It is a benchmark driver, not a user interface (the model
// command of limbo-analyze is that).
//
//	mixedfit -data F.csv[.gz] -y COL [-trials COL] -family binomial|poisson|gaussian [-reml]
//	         -x 'Anger,Gender,btype' -re '1|id;1|item'   (or 'Days|Subject', 'Days||Subject')
//	         [-cpuprofile FILE]
//
// Numeric -x columns enter as they are; a column with a non-numeric value
// is a factor, treatment-coded against its first level in byte order (R's
// default for these data). It prints β, the random-effect SDs, the
// log-likelihood and the fit's own seconds as one JSON object.
package main

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mixedfit:", err)
		os.Exit(1)
	}
}

type table struct {
	names []string
	cols  map[string][]string
	n     int
}

func readCSV(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, err
		}
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, err
	}
	t := &table{names: slices.Clone(head), cols: map[string][]string{}}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for j, h := range t.names {
			t.cols[h] = append(t.cols[h], strings.Clone(rec[j]))
		}
		t.n++
	}
	return t, nil
}

func (t *table) num(c string) ([]float64, bool, error) {
	s, ok := t.cols[c]
	if !ok {
		return nil, false, fmt.Errorf("no column %q", c)
	}
	out := make([]float64, len(s))
	for i, v := range s {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, false, nil
		}
		out[i] = x
	}
	return out, true, nil
}

func (t *table) codes(c string) ([]int, []string, error) {
	s, ok := t.cols[c]
	if !ok {
		return nil, nil, fmt.Errorf("no column %q", c)
	}
	lv := slices.Clone(s)
	slices.Sort(lv)
	lv = slices.Compact(lv)
	idx := make([]int, len(s))
	for i, v := range s {
		idx[i], _ = slices.BinarySearch(lv, v)
	}
	return idx, lv, nil
}

func run() error {
	data := flag.String("data", "", "CSV file (.gz allowed)")
	ycol := flag.String("y", "", "response column")
	trials := flag.String("trials", "", "binomial trials column")
	fam := flag.String("family", "binomial", "binomial, poisson or gaussian")
	reml := flag.Bool("reml", false, "REML (gaussian)")
	xs := flag.String("x", "", "comma-separated fixed-effect columns (an intercept is added)")
	res := flag.String("re", "", "semicolon-separated random terms: 1|g, z|g, z||g")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for go tool pprof)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	t, err := readCSV(*data)
	if err != nil {
		return err
	}
	var xcols [][]float64
	var names []string
	ones := make([]float64, t.n)
	for i := range ones {
		ones[i] = 1
	}
	xcols, names = append(xcols, ones), append(names, "(Intercept)")
	for _, c := range strings.Split(*xs, ",") {
		if c == "" {
			continue
		}
		v, numeric, err := t.num(c)
		if err != nil {
			return err
		}
		if numeric {
			xcols, names = append(xcols, v), append(names, c)
			continue
		}
		idx, lv, _ := t.codes(c)
		for k := 1; k < len(lv); k++ {
			d := make([]float64, t.n)
			for i, j := range idx {
				if j == k {
					d[i] = 1
				}
			}
			xcols, names = append(xcols, d), append(names, c+lv[k])
		}
	}
	X := mat.NewDense(t.n, len(xcols), nil)
	for j, c := range xcols {
		X.SetCol(j, c)
	}
	s := mixed.Spec{X: X, REML: *reml}
	if err := s.Family.UnmarshalText([]byte(*fam)); err != nil {
		return err
	}
	var ok bool
	if s.Y, ok, err = t.num(*ycol); err != nil || !ok {
		return fmt.Errorf("response %q: not numeric (%v)", *ycol, err)
	}
	if *trials != "" {
		if s.Trials, ok, err = t.num(*trials); err != nil || !ok {
			return fmt.Errorf("trials %q: not numeric (%v)", *trials, err)
		}
	}
	for _, r := range strings.Split(*res, ";") {
		lhs, g, found := strings.Cut(r, "|")
		if !found {
			return fmt.Errorf("random term %q: want z|g", r)
		}
		diag := strings.HasPrefix(g, "|")
		g = strings.TrimPrefix(g, "|")
		idx, lv, err := t.codes(g)
		if err != nil {
			return err
		}
		tm := mixed.Term{Name: g, Group: idx, Levels: len(lv), Coef: []string{"(Intercept)"}, Z: [][]float64{nil}, Diagonal: diag}
		for _, z := range strings.Split(lhs, "+") {
			if z == "1" {
				continue
			}
			v, numeric, err := t.num(z)
			if err != nil || !numeric {
				return fmt.Errorf("random slope %q: not a numeric column", z)
			}
			tm.Coef, tm.Z = append(tm.Coef, z), append(tm.Z, v)
		}
		s.Terms = append(s.Terms, tm)
	}
	t0 := time.Now()
	fit, err := mixed.Fit(s, mixed.Options{})
	if err != nil {
		return err
	}
	out := map[string]any{"names": names, "beta": fit.Coef, "se": fit.SE, "loglik": fit.LogLik,
		"fit_seconds": time.Since(t0).Seconds(), "n": fit.N, "evaluations": fit.Iter}
	var sds [][]float64
	for _, tf := range fit.Terms {
		sds = append(sds, tf.SD)
	}
	out["sd"] = sds
	if s.Family == stats.Gaussian {
		out["sigma"] = fit.Sigma
	}
	var warns []string
	for _, w := range fit.Warnings {
		warns = append(warns, w.Message)
	}
	out["warnings"] = warns
	return json.NewEncoder(os.Stdout).Encode(out)
}
