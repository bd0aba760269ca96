package agent

import (
	"bytes"
	"testing"
	"time"
)

// FuzzDecodeProfiles: any bytes given as --profiles decode to validated
// profiles or an error naming the file — never a panic.
func FuzzDecodeProfiles(f *testing.F) {
	f.Add(ProfilesJSON())
	f.Add([]byte(`{"models":{}}`))
	f.Add([]byte(`{"models":{"m":{"v_500":-1}}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkProfiles(t, data)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("decoding took over 5 s on %q", data)
		}
	})
}

func checkProfiles(t *testing.T, data []byte) {
	{
		p, err := DecodeProfiles(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("fuzz.json")) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if p == nil {
			t.Error("nil profiles without an error")
		}
	}
}
