package recfile

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// inputs has one input of every op, with every field its op sets.
func inputs() []*Input {
	t0 := time.Date(2026, 3, 1, 9, 30, 0, 123456789, time.UTC)
	return []*Input{
		{Seq: 1, Clock: t0, Op: OpBase, URL: "http://127.0.0.1:8080"},
		{Seq: 2, Clock: t0, Op: OpHTTP, Method: "POST", Target: "/v1/cards?x=1", Proto: "HTTP/1.1", Host: "sim",
			Remote: "10.0.0.1:5555", TLS: true, Header: http.Header{"Idempotency-Key": {"k1"}, "X-Multi": {"a", "b"}},
			Body: []byte(`{"amount":"10.00"}`), Draws: []bool{true, false}, Rules: 4},
		{Seq: 3, Clock: t0, Op: OpHTTP, Method: "PUT", Target: "/v1/x", Body: []byte{0xff, 0x00, 0xfe}, BodyErr: true},
		{Seq: 4, Clock: t0.Add(time.Second), Op: OpResume, Of: 2, Rules: 4},
		{Seq: 5, Clock: t0, Op: OpCall, Call: "Cards.Ship", Route: "POST /_sim/cards/ship",
			Args: []json.RawMessage{json.RawMessage(`"card_1"`), json.RawMessage(`{"a":1}`)}, Rules: 3},
		{Seq: 6, Clock: t0, Op: OpAdvance, To: t0.Add(time.Hour)},
		{Seq: 7, Clock: t0, Op: OpFlushDue},
		{Seq: 8, Clock: t0, Op: OpAttempt, Delivery: "dlv_1", At: t0.Add(2 * time.Minute), StatusCode: 503,
			Response: "busy", Error: "timeout"},
		{Seq: 9, Clock: t0, Op: OpFlushAbort, Deliveries: []string{"dlv_2", "dlv_3"}},
		{Seq: 10, Clock: t0, Op: OpCaps, Caps: &Caps{Nonces: 5, IdempotencyKeys: 6, StepUpChallenges: 7}},
	}
}

// TestMemLogRoundTrip: every op's input decodes from the in-memory log as
// it was added, in order, across chunks.
func TestMemLogRoundTrip(t *testing.T) {
	t.Parallel()
	var m MemLog
	want := inputs()
	// A body larger than a chunk's room opens chunks of its own.
	big := &Input{Seq: 11, Op: OpHTTP, Method: "POST", Target: "/v1/big", Body: []byte(strings.Repeat("x", memChunk+10))}
	want = append(want, big, &Input{Seq: 12, Op: OpFlushDue})
	for _, in := range want {
		if !m.Add(in, 1<<40) {
			t.Fatalf("Add(%d) refused under a limit it does not reach", in.Seq)
		}
	}
	got, err := m.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded inputs differ (-added +decoded):\n%s", diff)
	}
	chunks, n := m.View()
	if n != len(want) || len(chunks) < 2 {
		t.Errorf("View: %d inputs in %d chunks, want %d in at least 2", n, len(chunks), len(want))
	}
	viewed, err := DecodeChunks(chunks, n)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, viewed); diff != "" {
		t.Errorf("DecodeChunks(View()) differs:\n%s", diff)
	}
}

// TestMemLogLimit: an input that takes the log past its limit is not kept
// and leaves the log as it was.
func TestMemLogLimit(t *testing.T) {
	t.Parallel()
	var m MemLog
	in := inputs()[1]
	if !m.Add(in, 1000) {
		t.Fatal("first input refused")
	}
	if m.Add(inputs()[1], 1) {
		t.Fatal("an input past the limit was kept")
	}
	got, err := m.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*Input{in}, got); diff != "" {
		t.Errorf("after a refusal (-want +got):\n%s", diff)
	}
}

// TestReadInputRefusesDamage: a record cut anywhere, or with bytes after
// its end, is ErrBadRecord, never a panic.
func TestReadInputRefusesDamage(t *testing.T) {
	t.Parallel()
	for _, in := range inputs() {
		b := appendInput(nil, in)
		for cut := range len(b) {
			if _, err := readInput(b[:cut]); !errors.Is(err, ErrBadRecord) {
				t.Fatalf("input %d cut at %d of %d: err %v, want ErrBadRecord", in.Seq, cut, len(b), err)
			}
		}
		if _, err := readInput(append(b, 0)); !errors.Is(err, ErrBadRecord) {
			t.Fatalf("input %d with a trailing byte: err %v, want ErrBadRecord", in.Seq, err)
		}
	}
}

// TestInputJSON: the JSON form of an input, its body as text when UTF-8
// and in base64 otherwise, reads back as it was written.
func TestInputJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *Input
		want string
	}{
		{"text body", &Input{Seq: 1, Clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Op: OpHTTP, Method: "POST", Body: []byte(`{"a":1}`)},
			`{"seq":1,"clock":"2026-01-02T03:04:05Z","op":"http","method":"POST","body":"{\"a\":1}"}`},
		{"binary body", &Input{Seq: 2, Op: OpHTTP, Body: []byte{0xff, 0x01}},
			`{"seq":2,"clock":"0001-01-01T00:00:00Z","op":"http","body_base64":"/wE="}`},
		{"caps", &Input{Seq: 3, Op: OpCaps, Caps: &Caps{Nonces: 1, IdempotencyKeys: 2, StepUpChallenges: 3}},
			`{"seq":3,"clock":"0001-01-01T00:00:00Z","op":"caps","caps":{"nonces":1,"idempotency_keys":2,"step_up_challenges":3}}`},
		{"end", &Input{Seq: 4, Op: OpEnd, Digest: "abc"},
			`{"seq":4,"clock":"0001-01-01T00:00:00Z","op":"end","digest":"abc"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Marshal = %s\nwant      %s", b, tt.want)
			}
			var back Input
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, &back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeaderCheck: the format and the versions this build reads.
func TestHeaderCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		h       Header[struct{}]
		wantErr string
	}{
		{Header[struct{}]{Format: Format, Version: 1}, ""},
		{Header[struct{}]{Format: Format, Version: Version}, ""},
		{Header[struct{}]{Format: Format, Version: 0}, "recording version 0"},
		{Header[struct{}]{Format: Format, Version: Version + 1}, "reads versions 1 to"},
		{Header[struct{}]{Format: "other", Version: 1}, "not a recording"},
	}
	for _, tt := range tests {
		err := tt.h.Check()
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%+v: Check() = %v, want %q", tt.h, err, tt.wantErr)
		}
	}
}
