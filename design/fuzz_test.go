package design

import (
	"bytes"
	"testing"
	"time"
)

// FuzzManifest: any bytes given as --design (simulate, power) decode to a
// manifest or an error, and a decoded manifest compiles and scales to a
// plan or an error — never a panic.
func FuzzManifest(f *testing.F) {
	// The paper design is covered by the unit tests; small seeds keep each
	// execution fast.
	f.Add([]byte(`{"name":"x","experiments":[{"id":"E1","blocks":[{"models":["gpt-6-sol"],"tasks":[{"templates":["T01"],"instances":[0]}],"modes":["none"]}]}]}`))
	f.Add([]byte(`{"name":"x","experiments":[{"id":"E1","blocks":[{"models":["m"],"tasks":[{"instances":[-1, 99]}],"modes":["timeout_post"],"limit":{"m":0}}]}]}`))
	f.Add([]byte(`{"experiments":[]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkManifest(t, data)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("decode, compile and scale took over 5 s on %q", data)
		}
	})
}

func checkManifest(t *testing.T, data []byte) {
	{
		m, err := Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		if _, err := Compile(m); err != nil {
			return
		}
		for _, kind := range ScaleKinds() {
			for _, size := range []float64{0.5, 2} {
				s, err := Scale(m, kind, size)
				if err != nil {
					continue
				}
				if _, err := Compile(s.Manifest); err != nil {
					t.Errorf("Scale(%s, %v) gave a manifest that does not compile: %v", kind, size, err)
				}
			}
		}
	}
}
