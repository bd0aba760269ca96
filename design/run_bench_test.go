package design

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// BenchmarkPaperDesign simulates the whole paper design (25,930 episodes,
// calls and effects encoded) to io.Discard.
func BenchmarkPaperDesign(b *testing.B) {
	sim, err := LoadSimulator("paper", "", 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Generate(sim, 0, sim.Plan.Len(), 2, false, func(c *Chunk) error { _, err := io.Discard.Write(c.Buf); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMillion streams 1,023,360 episodes (8 models × 4 harnesses × 2
// contracts × 13 conditions × 2 cues × 615 worlds of E1's task suite) with
// calls and effects to io.Discard; memory stays bounded because the plan is
// stored per cell and the reorder buffer holds at most 2·jobs chunks.
func BenchmarkMillion(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	m := `{"name":"million","fixed_delay_s":90,"client_timeout_s":30,"tail":{"alpha":0.181,"lo_s":40,"hi_s":7200,"seed":1},
"experiments":[{"id":"M","blocks":[{"models":["gpt-6-astra","gpt-6-sol","gpt-5.6-sol","claude-opus-5.5","gemini-3.8-flash","mai-code-1.1-flash","gpt-4.1","unnamed-8"],
"harnesses":["minimal","copilot","hermes","codex"],"contracts":["native","keys-everywhere"],
"conditions":["vanilla","aware","reflect","sdk-retry","rules","vbr","guard","state-oracle","outcome-oracle","wait-0","wait-60","wait-120","wait-300"],
"cues":["default","plain"],"tasks":[{"instances":[0,1,2]}],
"modes":["timeout_pre","timeout_post","timeout_late","http500_pre","http500_post","redelivery","partial_batch"]}]}]}`
	path := filepath.Join(b.TempDir(), "million.json")
	if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	sim, err := LoadSimulator(path, "", 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sim.Plan.Len()), "episodes")
	for b.Loop() {
		if err := Generate(sim, 0, sim.Plan.Len(), 2, false, func(c *Chunk) error { _, err := io.Discard.Write(c.Buf); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEpisode times one episode of a design, single-threaded, as
// ns/episode over the whole design with calls and effects encoded, with
// the heap allocations and bytes of an episode (allocs/episode,
// B/episode), the CPU time of an episode (cpu-ns/episode) and the cost of
// a call (ns/call): the replay design's against the paper's (the target:
// no slower per episode).
func BenchmarkEpisode(b *testing.B) {
	for _, d := range Builtin {
		b.Run(d, func(b *testing.B) {
			sim, err := LoadSimulator(d, "", 1)
			if err != nil {
				b.Fatal(err)
			}
			benchEpisodes(b, sim)
		})
	}
}

// BenchmarkReplayArm times the replay design one arm at a time, as
// BenchmarkEpisode times a design: each agent fault through every guard
// (fault=…), and each guard under no agent fault (fault=none,guard=…).
// The arm fault=none,guard=none does the paper design's work (worlds of
// the paper's task templates, 4.9 calls an episode as the paper design
// makes) through the agent-side harness, so against
// BenchmarkEpisode/paper it is what that harness costs; the other arms
// add the calls and the guard's work their fault or guard brings.
func BenchmarkReplayArm(b *testing.B) {
	base, err := Load("replay")
	if err != nil {
		b.Fatal(err)
	}
	type arm struct{ name, fault, guard string }
	var arms []arm
	for _, f := range base.Experiments[0].Blocks[0].AgentFaults {
		arms = append(arms, arm{"fault=" + f, f, ""})
	}
	for _, g := range base.Experiments[0].Blocks[0].Guards {
		arms = append(arms, arm{"fault=none,guard=" + g, "none", g})
	}
	for _, a := range arms {
		b.Run(a.name, func(b *testing.B) {
			m, err := Load("replay")
			if err != nil {
				b.Fatal(err)
			}
			for i := range m.Experiments {
				for j := range m.Experiments[i].Blocks {
					bl := &m.Experiments[i].Blocks[j]
					bl.AgentFaults = []string{a.fault}
					if a.guard != "" {
						bl.Guards = []string{a.guard}
					}
				}
			}
			plan, err := Compile(m)
			if err != nil {
				b.Fatal(err)
			}
			benchEpisodes(b, NewSimulator(plan, agent.DefaultProfiles(), 1))
		})
	}
}

// benchEpisodes times sim's whole design, single-threaded, with calls and
// effects encoded: ns/episode, the process's CPU time an episode
// (cpu-ns/episode), the time of a call (ns/call), the calls an episode
// makes, and an episode's heap allocations and bytes.
func benchEpisodes(b *testing.B, sim *Simulator) {
	n := sim.Plan.Len()
	// The calls are counted once, before the clock starts: the count is
	// the design's, and counting inside the timed loop would time the
	// benchmark's own scan of the output.
	calls := 0
	if err := Generate(sim, 0, n, 1, false, func(c *Chunk) error {
		calls += bytes.Count(c.Buf, []byte(`"t_s":`)) // a call's time; effects have none
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := testfile.CPUSeconds()
	b.ResetTimer()
	for b.Loop() {
		if err := Generate(sim, 0, n, 1, false, func(c *Chunk) error { _, err := io.Discard.Write(c.Buf); return err }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu = testfile.CPUSeconds() - cpu
	runtime.ReadMemStats(&after)
	eps := float64(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/eps, "ns/episode")
	if cpu > 0 {
		// The process's CPU time (the garbage collector's included),
		// which a shared machine inflates less than the wall time.
		b.ReportMetric(cpu*1e9/eps, "cpu-ns/episode")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
	b.ReportMetric(float64(calls)/float64(n), "calls/episode")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/eps, "allocs/episode")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/eps, "B/episode")
}
