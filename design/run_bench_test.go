package design

import (
	"io"
	"os"
	"path/filepath"
	"testing"
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
// ns/episode over the whole design with calls and effects encoded: the
// replay design's against the paper's (the target: no slower per
// episode).
func BenchmarkEpisode(b *testing.B) {
	for _, d := range Builtin {
		b.Run(d, func(b *testing.B) {
			sim, err := LoadSimulator(d, "", 1)
			if err != nil {
				b.Fatal(err)
			}
			n := sim.Plan.Len()
			b.ResetTimer()
			for b.Loop() {
				if err := Generate(sim, 0, n, 1, false, func(c *Chunk) error { _, err := io.Discard.Write(c.Buf); return err }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/episode")
		})
	}
}
