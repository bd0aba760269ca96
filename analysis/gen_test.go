package analysis

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

var update = flag.Bool("update", false, "rewrite the committed sample ledger and the golden outputs")

// The sample generator's copies of the paper's fault families and E2
// conditions (package analysis/paper holds the paper's own).
var (
	resolvesModes = []string{ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch}
	lateModes     = ledger.LateModes
	e2Conditions  = []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr", "guard", "state-oracle", "outcome-oracle"}
)

func in(s string, set ...string) bool { return slices.Contains(set, s) }
func isPre(mode string) bool          { return strings.HasSuffix(mode, "_pre") }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// samplePath is the small committed ledger the goldens are computed on.
var samplePath = filepath.Join("..", "testdata", "analysis", "sample.jsonl.gz")

// genStep is one focal write of a synthetic template.
type genStep struct {
	tool, class, read, platform string
	reversible                  bool
}

// genTemplates is a six-template miniature of the paper's task suite
// (docs/simulation.md, Task suite): every contract class occurs.
var genTemplates = []struct {
	id, service string
	steps       []genStep
}{
	{"T01", "social", []genStep{{"social_publish", ledger.ClassKeyed, ledger.ReadStrong, "mastodon", true}, {"social_publish", ledger.ClassStrong, ledger.ReadStrong, "linkedin", true}, {"social_publish", ledger.ClassEventual, ledger.ReadEventual, "weibo", true}}},
	{"T02", "billing", []genStep{{"billing_create_charge", ledger.ClassKeyed, ledger.ReadStrong, "", true}, {"billing_refund_charge", ledger.ClassIdempotent, ledger.ReadStrong, "", false}}},
	{"T03", "tickets", []genStep{{"tickets_create", ledger.ClassStrong, ledger.ReadStrong, "", true}, {"tickets_add_comment", ledger.ClassEventual, ledger.ReadEventual, "", true}}},
	{"T04", "mail", []genStep{{"mail_send", ledger.ClassEventual, ledger.ReadEventual, "", false}, {"mail_send", ledger.ClassEventual, ledger.ReadEventual, "", false}}},
	{"T05", "data", []genStep{{"data_insert_many", ledger.ClassBatch, ledger.ReadStrong, "", true}}},
	{"T06", "deploy", []genStep{{"deploy_trigger", ledger.ClassStrong, ledger.ReadStrong, "", false}, {"deploy_trigger", ledger.ClassStrong, ledger.ReadStrong, "", false}}},
}

// genProfile is a model's propensities (docs/simulation.md, Behavioural parameters, coarsened).
type genProfile struct{ verify, lagWait, pi, giveUp, keyKE float64 }

var genProfiles = map[string]genProfile{
	"gpt-6-sol":          {1.0, 1.0, 0.6, 0.05, 1},
	"gpt-5.6-sol":        {1.0, 0.95, 0.9, 0.05, 1},
	"claude-opus-5.5":    {1.0, 1.0, 0.9, 0.03, 1},
	"gemini-3.8-flash":   {0.9, 0.85, 0.8, 0.08, 0.95},
	"mai-code-1.1-flash": {0.5, 0.4, 0.95, 0.2, 0.7},
}

// genEpisode draws one episode's outcome. The behavioural uniforms come from
// a stream keyed on the world (pair_key), shared across conditions as the
// simulator does, plus the condition for the small independent part.
func genEpisode(seed uint64, e *ledger.Episode, st genStep) {
	h := fnv.New64a()
	fmt.Fprint(h, e.PairKey)
	world := rand.New(rand.NewPCG(seed, h.Sum64()))
	fmt.Fprint(h, e.Experiment, e.Condition, e.Contract, e.Cue, e.Harness)
	own := rand.New(rand.NewPCG(seed, h.Sum64()))
	u1, u2, u3, u4 := world.Float64(), world.Float64(), world.Float64(), world.Float64()
	p := genProfiles[e.Model]
	if e.Cue == ledger.CuePlain {
		p.verify -= 0.15
		p.pi = math.Min(1, p.pi+0.15)
	}
	guard := e.Condition == "guard"
	keys := e.Contract == ledger.ContractKeysEverywhere
	protected := st.class == ledger.ClassKeyed || st.class == ledger.ClassIdempotent || (keys && u4 < p.keyKE)
	if guard && keys {
		protected = true
	}
	dup, ts := false, true
	rec := ledger.RecoveryNone
	verified := u1 < p.verify || guard || e.Condition == "vbr" || e.Condition == "state-oracle" || e.Condition == "outcome-oracle"
	switch m := e.FaultMode; {
	case isPre(m):
		if u3 < p.giveUp && !guard {
			ts = false
			rec = ledger.RecoveryGiveUp
		} else if verified {
			rec = ledger.RecoveryVerifyThenRetry
		} else {
			rec = ledger.RecoveryBlindRetry
		}
	case in(m, resolvesModes...):
		switch {
		case e.Condition == "sdk-retry":
			dup = !protected || st.class == ledger.ClassBatch
			rec = ledger.RecoveryBlindRetry
		case protected && !(st.class == ledger.ClassBatch):
			rec = ledger.RecoveryKeyReuse
		case guard:
			rec = ledger.RecoveryVerifyThenSkip
		case !verified:
			dup = true
			rec = ledger.RecoveryBlindRetry
		case st.read == ledger.ReadEventual && u2 > p.lagWait:
			dup = true
			rec = ledger.RecoveryVerifyThenRetry
		case u3 < 0.06:
			// Re-issues despite a positive read-back (docs/simulation.md, Behavioural parameters: s).
			dup = true
			rec = ledger.RecoveryVerifyThenRetry
		default:
			rec = ledger.RecoveryVerifyThenSkip
		}
	case in(m, lateModes...):
		pi := p.pi
		if e.Condition == "outcome-oracle" {
			pi = 0
		}
		if e.Condition == "state-oracle" {
			pi *= 0.5
		}
		var wait float64 = -1
		fmt.Sscanf(e.Condition, "wait-%g", &wait)
		switch {
		case protected:
			rec = ledger.RecoveryKeyReuse
		case wait >= 0 && e.DelayS <= wait:
			rec = ledger.RecoveryWaitThenVerify
		case u2 < pi || e.Condition == "sdk-retry":
			dup = true
			rec = ledger.RecoveryVerifyThenRetry
		default:
			rec = ledger.RecoveryWaitThenVerify
		}
	case m == ledger.FaultRedelivery:
		dup = !protected
	}
	// A little independent noise so paired conditions are not identical.
	if own.Float64() < 0.05 {
		dup = !dup && e.FaultMode != ledger.FaultNone && e.FaultMode != "" && !isPre(e.FaultMode)
	}
	e.Duplicated = dup
	e.TaskSuccess = ts
	e.EOS = ts && !dup && own.Float64() > 0.02
	e.Recovery = rec
	// The first move is decided before any world can answer
	// (docs/ledger.md, first_move): after a success the next step; after
	// an error a re-issue without verifying, a wait when the read path
	// lags and the model waits it out, else a read-back. It reuses the
	// world's draws, whose law is the same in every world.
	switch fm, _ := ledger.FaultByName(e.FaultMode); {
	case fm.Observed == ledger.OutcomeOK:
		e.FirstMove = ledger.MoveOther
	case !verified:
		e.FirstMove = ledger.MoveReissue
	case st.read == ledger.ReadEventual && u2 < p.lagWait:
		e.FirstMove = ledger.MoveWait
	default:
		e.FirstMove = ledger.MoveReadBack
	}
	e.ExpectedCommits = 1
	e.FocalCommits = int64(b2f(ts)) + int64(b2f(dup))
	e.ToolCalls = int64(3 + own.IntN(6))
	e.AgentTimeS = math.Round(100+own.Float64()*120) + math.Max(0, float64(waitOf(e.Condition))-30)
	e.ReportedSuccess = own.Float64() < 0.9
	e.UncertaintyListed = own.Float64() < 0.2
	e.Overclaim = e.ReportedSuccess && (dup || !ts)
	if e.Experiment == "E2" {
		c := math.Round(own.Float64()*1000) / 10000
		e.CostUSD = &c
	}
}

func waitOf(cond string) int {
	var w int
	if _, err := fmt.Sscanf(cond, "wait-%d", &w); err != nil {
		return 0
	}
	return w
}

// genSample builds the sample ledger: a miniature of every experiment.
func genSample(seed uint64) []*ledger.Episode {
	var out []*ledger.Episode
	tailRng := rand.New(rand.NewPCG(seed, 99))
	tail := map[string]float64{}
	add := func(exp, model, harness, contract, cond, cue string, tmplIdx, inst, focal int, mode string) {
		tp := genTemplates[tmplIdx]
		st := tp.steps[focal]
		task := fmt.Sprintf("%s#%d", tp.id, inst)
		pk := fmt.Sprintf("%s/%s/%d/%d/%s", model, tp.id, inst, focal, mode)
		e := &ledger.Episode{
			EpisodeID:  fmt.Sprintf("%s-%s-%s-%s-%s-%s-%s", exp, harness, contract, cond, cue, pk, "x"),
			Experiment: exp, Model: model, Harness: harness, Contract: contract, Condition: cond, Cue: cue,
			Service: tp.service, Template: tp.id, Instance: int64(inst), Task: task, FocalWrite: st.tool,
			FocalIndex: int64(focal), Platform: st.platform, PairKey: pk, WriteClass: st.class, ReadPath: st.read,
			Reversible: st.reversible, FaultMode: mode, FaultFired: mode != ledger.FaultNone, Weight: 1, Seed: int64(seed),
		}
		if contract == ledger.ContractKeysEverywhere && st.class != ledger.ClassIdempotent {
			e.WriteClass = ledger.ClassKeyed
		}
		switch mode {
		case ledger.FaultTimeoutLate:
			e.DelayS = 90
		case ledger.FaultTimeoutLateTail:
			k := task + "/" + fmt.Sprint(focal)
			if _, ok := tail[k]; !ok {
				tail[k] = 40 * math.Pow(180, tailRng.Float64())
			}
			e.DelayS = tail[k]
		}
		genEpisode(seed, e, st)
		out = append(out, e)
	}
	sixModes := []string{ledger.FaultTimeoutPre, ledger.FaultTimeoutPost, ledger.FaultTimeoutLate, ledger.FaultHTTP500Pre, ledger.FaultHTTP500Post, ledger.FaultRedelivery}
	forWrites := func(inst int, modes []string, f func(ti, focal int, mode string)) {
		for ti, tp := range genTemplates {
			for fi, st := range tp.steps {
				for _, m := range modes {
					if m == ledger.FaultPartialBatch && st.class != ledger.ClassBatch {
						continue
					}
					f(ti, fi, m)
				}
			}
			_ = inst
		}
	}
	e1Modes := append(append([]string{}, sixModes...), ledger.FaultPartialBatch)
	e1Models := []string{"gpt-6-sol", "claude-opus-5.5", "gemini-3.8-flash", "mai-code-1.1-flash"}
	for _, mo := range e1Models {
		for inst := 0; inst < 3; inst++ {
			forWrites(inst, e1Modes, func(ti, fi int, m string) {
				add("E1", mo, "minimal", ledger.ContractNative, "vanilla", ledger.CueDefault, ti, inst, fi, m)
			})
			for ti := range genTemplates {
				add("E1", mo, "minimal", ledger.ContractNative, "vanilla", ledger.CueDefault, ti, inst, 0, ledger.FaultNone)
			}
		}
		for inst := 3; inst < 6; inst++ {
			add("E1s", mo, "minimal", ledger.ContractNative, "vanilla", ledger.CueDefault, 4, inst, 0, ledger.FaultPartialBatch)
		}
		// E6 plain arm on instance 0.
		forWrites(0, []string{ledger.FaultTimeoutPre, ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch, ledger.FaultTimeoutLate, ledger.FaultRedelivery}, func(ti, fi int, m string) {
			add("E6", mo, "minimal", ledger.ContractNative, "vanilla", ledger.CuePlain, ti, 0, fi, m)
		})
		for ti := range genTemplates {
			add("E6", mo, "minimal", ledger.ContractNative, "vanilla", ledger.CuePlain, ti, 0, 0, ledger.FaultNone)
		}
	}
	e2Models := []string{"gpt-6-sol", "mai-code-1.1-flash"}
	for _, mo := range e2Models {
		for _, c := range e2Conditions {
			forWrites(0, e1Modes, func(ti, fi int, m string) {
				add("E2", mo, "minimal", ledger.ContractNative, c, ledger.CueDefault, ti, 0, fi, m)
			})
		}
		for _, c := range []string{"vanilla", "guard"} {
			forWrites(0, e1Modes, func(ti, fi int, m string) {
				add("E2k", mo, "minimal", ledger.ContractKeysEverywhere, c, ledger.CueDefault, ti, 0, fi, m)
			})
		}
		for _, c := range []string{"wait-0", "wait-60", "wait-120", "wait-300"} {
			forWrites(0, []string{ledger.FaultTimeoutLate}, func(ti, fi int, m string) {
				add("E5", mo, "minimal", ledger.ContractNative, c, ledger.CueDefault, ti, 0, fi, m)
			})
		}
		for _, c := range []string{"vanilla", "guard", "state-oracle", "outcome-oracle", "wait-0", "wait-60", "wait-300", "wait-3600"} {
			forWrites(0, []string{ledger.FaultTimeoutLateTail}, func(ti, fi int, m string) {
				add("E5", mo, "minimal", ledger.ContractNative, c, ledger.CueDefault, ti, 0, fi, m)
			})
		}
		forWrites(0, []string{ledger.FaultTimeoutLateTail}, func(ti, fi int, m string) {
			add("E5", mo, "minimal", ledger.ContractKeysEverywhere, "vanilla", ledger.CueDefault, ti, 0, fi, m)
		})
	}
	for _, h := range []string{"minimal", "copilot", "hermes"} {
		for _, mo := range []string{"gpt-5.6-sol", "gemini-3.8-flash"} {
			for _, c := range []string{"vanilla", "guard"} {
				forWrites(0, e1Modes, func(ti, fi int, m string) {
					add("E3", mo, h, ledger.ContractNative, c, ledger.CueDefault, ti, 0, fi, m)
				})
				if mo == "gpt-5.6-sol" {
					forWrites(0, e1Modes, func(ti, fi int, m string) {
						add("E3k", mo, h, ledger.ContractKeysEverywhere, c, ledger.CueDefault, ti, 0, fi, m)
					})
				}
			}
		}
	}
	return out
}

// loadSample reads the committed sample ledger with encoding/json (the
// analysis tests do not depend on the ledger readers).
func loadSample(t testing.TB) *table.Data {
	t.Helper()
	eps, err := testfile.ReadJSONLinesGz[ledger.Episode](samplePath)
	if err != nil {
		t.Fatalf("%v (run go test ./analysis/ -run TestGenerateSample -update)", err)
	}
	return table.NewData(eps)
}

// TestGenerateSample writes testdata/analysis/sample.jsonl.gz under -update and
// otherwise checks that the committed file is what the generator makes.
func TestGenerateSample(t *testing.T) {
	var buf bytes.Buffer
	for _, e := range genSample(7) {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if *update {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(buf.Bytes())
		zw.Close()
		if err := os.WriteFile(samplePath, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := testfile.Gunzip(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s is stale; regenerate with -update", samplePath)
	}
}
