package recfile

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type testConfig struct {
	Seed int64 `json:"seed"`
}

// TestFileRoundTrip writes a recording file and reads it back, whole and
// cut short at every byte: a cut file reads with partial set (without its
// end line, its last line dropped when cut) and never as a whole one.
func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	f := &File[testConfig]{
		Header: Header[testConfig]{Format: Format, Version: Version, Config: testConfig{Seed: 7}},
		Inputs: []*Input{
			{Seq: 1, Clock: at, Op: OpHTTP, Method: "POST", Target: "/v1/a", Body: []byte(`{"a":"<b>"}`)},
			{Seq: 2, Clock: at, Op: OpAdvance, To: at.Add(time.Hour)},
		},
		End: at.Add(time.Hour), Digest: "sha256:d", Ended: true,
	}
	var buf bytes.Buffer
	n, err := Write(&buf, f)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("Write: %d, %v (wrote %d)", n, err, buf.Len())
	}
	got, err := Read[testConfig](bytes.NewReader(buf.Bytes()), false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	whole := buf.Bytes()
	headerEnd := bytes.IndexByte(whole, '\n') + 1
	for cut := headerEnd; cut < len(whole)-1; cut++ {
		p, err := Read[testConfig](bytes.NewReader(whole[:cut]), true)
		if err != nil {
			t.Fatalf("cut at %d, partial: %v", cut, err)
		}
		if p.Ended || len(p.Inputs) > len(f.Inputs) {
			t.Fatalf("cut at %d: ended %v with %d inputs", cut, p.Ended, len(p.Inputs))
		}
	}
}

// TestFileRefusals: a line after the end line, a gap in the numbering and
// a foreign header are refused.
func TestFileRefusals(t *testing.T) {
	t.Parallel()
	head := `{"format":"` + Format + `","version":1,"config":{"seed":1}}` + "\n"
	tests := map[string]struct{ file, want string }{
		"after the end": {head + `{"seq":0,"clock":"2026-01-01T00:00:00Z","op":"end"}` + "\n" + `{"seq":1,"clock":"2026-01-01T00:00:00Z","op":"flush_due"}` + "\n", "follows the end line"},
		"gap":           {head + `{"seq":2,"clock":"2026-01-01T00:00:00Z","op":"flush_due"}` + "\n", "seq 2, want 1"},
		"foreign":       {`{"format":"other","version":1}` + "\n", "not a recording"},
	}
	for name, tc := range tests {
		if _, err := Read[testConfig](strings.NewReader(tc.file), true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
