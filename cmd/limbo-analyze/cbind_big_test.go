package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37, case 11: cbind counts beyond 2^53 gave an impossible positive
// log-likelihood and a negative AIC, exit 0; they are refused, naming the
// row. At 1e12 the log-likelihood is R's (stats' TestGLMBigCounts checks
// it to 1e-6); here it must at least be a log-likelihood: below 0.
func TestCbindBigCounts(t *testing.T) {
	dir := t.TempDir()
	var big, ok strings.Builder
	big.WriteString("k,n,x\n")
	ok.WriteString("k,n,x\n")
	for i := range 40 {
		x := i % 4
		p := 1 / (1 + math.Exp(1-0.4*float64(x)))
		n := math.Ldexp(1, 60) + float64(i)*math.Ldexp(1, 20)
		fmt.Fprintf(&big, "%.0f,%.0f,%d\n", math.Round(n*p), n, x)
		m := 1e12 + float64(i)*1e6
		fmt.Fprintf(&ok, "%.0f,%.0f,%d\n", math.Round(m*p)+float64(i%3)*1e5, m, x)
	}
	bigCSV, okCSV := filepath.Join(dir, "big.csv"), filepath.Join(dir, "ok.csv")
	writeFile(t, bigCSV, big.String())
	writeFile(t, okCSV, ok.String())
	for _, fam := range [][]string{{}, {"--fit", "glm", "--family", "binomial"}, {"--family", "glmm"}} {
		args := append([]string{"model", "--in", bigCSV, "--formula", "cbind(k, n - k) ~ x"}, fam...)
		if len(fam) > 0 && fam[len(fam)-1] == "glmm" {
			args[4] = "cbind(k, n - k) ~ 1 + (1 | x)"
		}
		code, stdout, stderr := runCmd(t, args...)
		if code != exitFailure || !strings.Contains(stderr, "beyond 2^53") || !strings.Contains(stderr, "where k = 3") {
			t.Errorf("%v: exit %d, stderr %q, stdout %.200q; want the counts refused", args, code, stderr, stdout)
		}
	}
	code, stdout, stderr := runCmd(t, "model", "--in", okCSV, "--formula", "cbind(k, n - k) ~ x", "--format", "json")
	if code != 0 {
		t.Fatalf("1e12 counts: exit %d: %s", code, stderr)
	}
	var r struct {
		LogLik float64 `json:"loglik"`
		AIC    float64 `json:"aic"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if !(r.LogLik < 0) || !(r.AIC > 0) {
		t.Errorf("1e12 counts: loglik %v, AIC %v; want a negative log-likelihood", r.LogLik, r.AIC)
	}
}
