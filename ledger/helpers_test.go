package ledger

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// synthEpisode returns a valid, deterministic episode number i (for
// round-trip tests and benchmarks).
func synthEpisode(i int) *Episode {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	models := []string{"gpt-4.1", "claude-sonnet-4", "qwen3-32b", "llama-4"}
	tools := []string{"mail_send", "data_insert", "tickets_create", "deploy_trigger"}
	sim := FaultNames(func(m FaultMode) bool { return m.InjectedBy(SiteSandbox) }) // the sandbox's modes
	mode := sim[i%len(sim)]
	tpl := fmt.Sprintf("T%02d", 1+i%12)
	e := &Episode{
		EpisodeID:  fmt.Sprintf("ep-%08d", i),
		Experiment: "E1",
		Model:      models[i%len(models)],
		Harness:    PaperHarnesses[i%4],
		Contract:   Contracts.Values[i%2],
		Condition:  PaperConditions[i%len(PaperConditions)],
		Cue:        CueDefault,
		Service:    "data",
		Template:   tpl,
		Instance:   int64(i % 3),
		Task:       fmt.Sprintf("%s#%d", tpl, i%3),
		FocalWrite: tools[i%len(tools)],
		FocalIndex: int64(i % 4),
		PairKey:    fmt.Sprintf("m/%s/%d/%s", tpl, i%3, mode),
		WriteClass: ClassStrong,
		ReadPath:   ReadStrong,
		Reversible: i%3 == 0,
		FaultMode:  mode,
		FaultFired: mode != FaultNone,
		Weight:     1 + rng.Float64(),
		Seed:       int64(rng.Uint32()),

		ExpectedCommits:   1,
		FocalCommits:      int64(rng.IntN(3)),
		ToolCalls:         int64(1 + rng.IntN(8)),
		AgentTimeS:        rng.Float64() * 100,
		ReportedSuccess:   rng.IntN(2) == 0,
		UncertaintyListed: rng.IntN(4) == 0,
		Recovery:          Recoveries.Values[i%len(Recoveries.Values)],
	}
	if mode == FaultPartialBatch {
		e.WriteClass = ClassBatch
		e.FocalWrite = "data_insert_many"
	}
	if mode == FaultTimeoutLate || mode == FaultTimeoutLateTail {
		e.DelayS = 90
	}
	e.Duplicated = e.FocalCommits > 1
	e.TaskSuccess = e.FocalCommits >= 1
	e.EOS = e.TaskSuccess && !e.Duplicated
	e.Overclaim = e.ReportedSuccess && !e.EOS
	if i%5 == 0 {
		c := 0.01 * float64(i%7)
		e.CostUSD = &c
	}
	return e
}

// synthRaw wraps synthEpisode with nCalls calls and effects.
func synthRaw(i, nCalls int) *RawEpisode {
	r := &RawEpisode{Episode: *synthEpisode(i)}
	for j := range nCalls {
		r.Calls = append(r.Calls, Call{Seq: int64(j), TS: float64(j) * 2.5, Tool: "data_insert", Args: `{"table":"t","row":{"id":7}}`, IdempotencyKey: fmt.Sprintf("k-%d-%d", i, j), Outcome: OutcomeOK, LatencyS: 0.4})
		r.Effects = append(r.Effects, Effect{Seq: int64(j), Service: "data", Tool: "data_insert", ResourceID: fmt.Sprintf("r-%d-%d", i, j), Attempt: 1, IssuedAtS: float64(j) * 2.5, CommittedAtS: float64(j)*2.5 + 0.2, Source: SourceAgent, Focal: j == 0})
	}
	r.FinalReport = &FinalReport{Status: StatusCompleted, Uncertainties: []string{"maybe"}}
	return r
}

// testGrader grades a synthetic raw episode: it keeps the design fields
// and fills outcome fields from the effects.
func testGrader(r *RawEpisode) (Episode, error) {
	e := r.Episode
	e.FocalCommits = 0
	for _, x := range r.Effects {
		if x.Focal && !x.Absorbed {
			e.FocalCommits++
		}
	}
	e.ExpectedCommits = 1
	e.Duplicated = e.FocalCommits > 1
	e.TaskSuccess = e.FocalCommits >= 1
	e.EOS = e.TaskSuccess && !e.Duplicated
	e.ToolCalls = int64(len(r.Calls))
	e.ReportedSuccess = r.FinalReport.Status == StatusCompleted
	e.UncertaintyListed = len(r.FinalReport.Uncertainties) > 0
	e.Overclaim = e.ReportedSuccess && !e.EOS
	e.Recovery = RecoveryNone
	return e, nil
}

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeEpisodes(t testing.TB, path string, eps []*Episode, extra []string) {
	t.Helper()
	writeEpisodesWith(t, path, eps, extra, WriteOptions{})
}

// writeEpisodesWith writes eps to path with the settings o, failing t on
// any error.
func writeEpisodesWith(t testing.TB, path string, eps []*Episode, extra []string, o WriteOptions) {
	t.Helper()
	w, err := CreateEpisodesWith(path, "", extra, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func readAll(t testing.TB, path string, opt ReadOptions) []*Episode {
	t.Helper()
	var out []*Episode
	if err := ReadEpisodes(path, opt, func(e *Episode) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}
