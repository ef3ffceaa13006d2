package exchangelog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const testEnv = "MWALLET_SIM_EXCHANGE_LOG_TEST"

// encodeJSON encodes an entry as the test reads it back.
func encodeJSON(e *Entry) ([]byte, error) { return json.Marshal(e) }

// readEntries reads the entries logged in dir by this process.
func readEntries(t *testing.T, dir string) []Entry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("exchanges-%d.ndjson", os.Getpid())))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// ignoreVarying leaves out what differs from run to run.
var ignoreVarying = cmpopts.IgnoreFields(Entry{}, "Instance", "Time")

func TestFromEnvOffReturnsTheHandler(t *testing.T) {
	t.Setenv(testEnv, "")
	h := http.NotFoundHandler()
	if got := FromEnv(h, testEnv, encodeJSON); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", h) {
		t.Errorf("FromEnv with the variable empty wrapped the handler: %T", got)
	}
	tr := &http.Transport{}
	if got := TransportFromEnv(tr, testEnv, encodeJSON); got != http.RoundTripper(tr) {
		t.Errorf("TransportFromEnv with the variable empty wrapped the transport: %T", got)
	}
}

func TestFromEnvLogsEachExchange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	t.Setenv(testEnv, dir)
	h := FromEnv(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/fault" {
			MarkFault(r, "error")
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(append([]byte("echo "), b...))
	}), testEnv, encodeJSON)
	for _, tc := range []struct {
		target, body string
	}{
		{"/a?x=1", "hello"},
		{"/fault", ""},
		{"/bin", "\xff\xfe"},
		{"/long", strings.Repeat("x", MaxBody+10)},
	} {
		r := httptest.NewRequest(http.MethodPost, tc.target, strings.NewReader(tc.body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got, want := w.Body.String(), "echo "+tc.body; got != want {
			t.Errorf("%s: the handler saw another body (%d bytes, want %d)", tc.target, len(got), len(want))
		}
	}
	resp := func(body string, truncated bool) *Message {
		return &Message{Status: http.StatusTeapot, Header: http.Header{"Content-Type": {"text/plain"}}, Body: body, Truncated: truncated}
	}
	req := func(target, body string, b64 []byte, truncated bool) Message {
		return Message{Method: http.MethodPost, Target: target, Header: http.Header{"Host": {"example.com"}}, Body: body, BodyBase64: b64, Truncated: truncated}
	}
	want := []Entry{
		{Kind: "serve", Seq: 1, Request: req("/a?x=1", "hello", nil, false), Response: resp("echo hello", false)},
		{Kind: "serve", Seq: 2, Request: req("/fault", "", nil, false), Response: resp("echo ", false), Fault: "error"},
		{Kind: "serve", Seq: 3, Request: req("/bin", "", []byte("\xff\xfe"), false), Response: &Message{Status: http.StatusTeapot, Header: http.Header{"Content-Type": {"text/plain"}}, BodyBase64: []byte("echo \xff\xfe")}},
		{Kind: "serve", Seq: 4, Request: req("/long", strings.Repeat("x", MaxBody), nil, true), Response: resp("echo "+strings.Repeat("x", MaxBody-5), true)},
	}
	if diff := cmp.Diff(want, readEntries(t, dir), ignoreVarying); diff != "" {
		t.Errorf("logged exchanges (-want +got):\n%s", diff)
	}
}

func TestTransportFromEnvLogsEachDelivery(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "log")
	t.Setenv(testEnv, dir)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: TransportFromEnv(tr, testEnv, encodeJSON)}
	for _, url := range []string{srv.URL + "/hook", "http://127.0.0.1:1/closed"} {
		r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"a":1}`))
		if resp, err := c.Do(r); err == nil {
			_ = resp.Body.Close()
		}
	}
	got := readEntries(t, dir)
	for i := range got {
		if got[i].Response != nil {
			got[i].Response.Header = nil
		}
		got[i].Request.Header = nil
	}
	want := []Entry{
		{Kind: "webhook", Seq: 1, Request: Message{Method: http.MethodPost, Target: srv.URL + "/hook", Body: `{"a":1}`}, Response: &Message{Status: http.StatusAccepted}},
		{Kind: "webhook", Seq: 2, Request: Message{Method: http.MethodPost, Target: "http://127.0.0.1:1/closed", Body: `{"a":1}`}, Dropped: true},
	}
	if diff := cmp.Diff(want, got, ignoreVarying); diff != "" {
		t.Errorf("logged deliveries (-want +got):\n%s", diff)
	}
}
