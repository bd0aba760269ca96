package guard_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// BenchmarkMemoryKeyedWrite is one guarded write (Begin and Finish of a
// new key) over the in-memory store the simulator uses.
func BenchmarkMemoryKeyedWrite(b *testing.B) {
	g, err := guard.New(guard.Config{Policy: guard.Keys}, guard.NewMemoryStore())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	cpu := testfile.CPUSeconds()
	for b.Loop() {
		key := strconv.Itoa(i)
		c := guard.Call{Tool: "charge", Fingerprint: "f", Key: key}
		d, err := g.Begin(ctx, c, guardtest.At(float64(i)))
		if err != nil || d.Outcome != guard.Forward {
			b.Fatalf("%s %v", d.Outcome, err)
		}
		if err := g.Finish(ctx, d.Ticket, guard.Succeeded, nil, guardtest.At(float64(i))); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time per operation since cpu, next
// to the wall time, which a shared machine inflates.
func reportCPU(b *testing.B, cpu float64) {
	if c := testfile.CPUSeconds(); c > 0 {
		b.ReportMetric((c-cpu)*1e9/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMemoryReplay is a repeat answered from the in-memory store.
func BenchmarkMemoryReplay(b *testing.B) {
	g, _ := guard.New(guard.Config{Policy: guard.Keys}, guard.NewMemoryStore())
	ctx := context.Background()
	c := guard.Call{Tool: "charge", Fingerprint: "f", Key: "k"}
	d, _ := g.Begin(ctx, c, guardtest.At(0))
	g.Finish(ctx, d.Ticket, guard.Succeeded, []byte("r"), guardtest.At(0))
	cpu := testfile.CPUSeconds()
	for b.Loop() {
		if d, err := g.Begin(ctx, c, guardtest.At(1)); err != nil || d.Outcome != guard.Replay {
			b.Fatal(d.Outcome, err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkFingerprint is the fingerprint of a typical write's arguments,
// decoded (as the simulator holds them) and as JSON text (as a proxy
// receives them).
func BenchmarkFingerprint(b *testing.B) {
	e, _ := guard.NewEffect(nil, "idempotency_key")
	args := map[string]any{"customer": "cus_8812", "amount_cents": 1250, "currency": "usd", "description": "May invoice", "idempotency_key": "k-1"}
	raw := []byte(`{"customer":"cus_8812","amount_cents":1250,"currency":"usd","description":"May invoice","idempotency_key":"k-1"}`)
	b.Run("decoded", func(b *testing.B) {
		cpu := testfile.CPUSeconds()
		for b.Loop() {
			if _, err := e.Fingerprint("billing_create_charge", args); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("json", func(b *testing.B) {
		cpu := testfile.CPUSeconds()
		for b.Loop() {
			if _, err := e.FingerprintJSON("billing_create_charge", raw); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
}
