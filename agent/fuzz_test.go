package agent

import (
	"bytes"
	"testing"
)

// FuzzDecodeProfiles: any bytes given as --profiles decode to validated
// profiles or an error naming the file — never a panic.
func FuzzDecodeProfiles(f *testing.F) {
	f.Add(ProfilesJSON())
	f.Add([]byte(`{"models":{}}`))
	f.Add([]byte(`{"models":{"m":{"v_500":-1}}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeProfiles(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("fuzz.json")) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if p == nil {
			t.Fatal("nil profiles without an error")
		}
	})
}
