package simulator_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestExchangeLog turns the exchange log on and checks that every kind of
// exchange lands in it as one JSON line: an answered business request with
// its body and headers, control calls, and a dropped connection.
func TestExchangeLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	t.Setenv(simulator.EnvExchangeLog, dir)
	sim := simtest.Start(t)

	req, _ := http.NewRequest(http.MethodPost, sim.URL()+"/v1/qrpay/decode?x=1", strings.NewReader(`{"code_value":"abc"}`))
	req.Header.Set("X-On-Behalf-Of", "member-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp, err = http.Get(sim.URL() + "/_sim/clock"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	fault := strings.NewReader(`{"method":"GET","path":"/v1/assets","kind":"drop_before"}`)
	if resp, err = http.Post(sim.URL()+"/_sim/faults", "application/json", fault); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /_sim/faults: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, err := http.Get(sim.URL() + "/v1/assets"); err == nil {
		resp.Body.Close()
		t.Fatal("the dropped request got an answer")
	}

	files, err := filepath.Glob(filepath.Join(dir, "exchanges-*.ndjson"))
	if err != nil || len(files) != 1 {
		t.Fatalf("log files %v, %v; want one", files, err)
	}
	waitLines(t, files[0], 4)
	if st, err := os.Stat(files[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("log directory mode %v, %v; want 0700", st.Mode().Perm(), err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []simulator.Exchange
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var x simulator.Exchange
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, x)
	}
	if len(got) != 4 {
		t.Fatalf("%d exchanges logged, want 4: %+v", len(got), got)
	}
	decode, clock, dropped := got[0], got[1], got[3]
	if decode.Kind != "serve" || decode.Request.Method != "POST" || decode.Request.Target != "/v1/qrpay/decode?x=1" ||
		decode.Request.Body != `{"code_value":"abc"}` || decode.Request.Header.Get("X-On-Behalf-Of") != "member-1" {
		t.Errorf("request not logged as sent: %+v", decode.Request)
	}
	if decode.Response == nil || decode.Response.Status != 401 || !strings.Contains(decode.Response.Body, `"invalid_token"`) ||
		decode.Response.Header.Get("X-Request-Id") == "" {
		t.Errorf("response not logged as answered: %+v", decode.Response)
	}
	if clock.Request.Target != "/_sim/clock" || clock.Response == nil || clock.Response.Status != 200 {
		t.Errorf("control call not logged: %+v", clock)
	}
	if !dropped.Dropped || dropped.Response != nil || dropped.Request.Target != "/v1/assets" {
		t.Errorf("dropped connection not logged as dropped: %+v", dropped)
	}
	// Only the faulted exchange names its fault.
	for i, x := range got {
		want := ""
		if i == 3 {
			want = "drop_before"
		}
		if x.Fault != want {
			t.Errorf("exchange %d (%s %s) logged fault %q, want %q", i+1, x.Request.Method, x.Request.Target, x.Fault, want)
		}
	}
	if decode.Instance != clock.Instance || decode.Seq != 1 || clock.Seq != 2 || dropped.Seq != 4 {
		t.Errorf("instance and sequence numbers: %d/%d %d/%d %d/%d", decode.Instance, decode.Seq, clock.Instance, clock.Seq, dropped.Instance, dropped.Seq)
	}
}

// TestExchangeLogOffByDefault checks that nothing is written without the
// environment variable.
func TestExchangeLogOffByDefault(t *testing.T) {
	t.Setenv(simulator.EnvExchangeLog, "")
	sim, err := simulator.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := simulator.LogExchanges(sim).(*simulator.Simulator); !ok || got != sim {
		t.Errorf("LogExchanges wrapped the handler with the log off: %T", got)
	}
}

// TestExchangeLogMarksFaults checks that every fault kind is named on the
// exchange it was applied to, on a documented path and on a path no
// endpoint serves, answered or dropped, and that an exchange without a
// fault and a control call carry no mark.
func TestExchangeLogMarksFaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	t.Setenv(simulator.EnvExchangeLog, dir)
	sim := simtest.Start(t)

	type sent struct{ target, want string }
	var all []sent
	for _, target := range []string{"/v1/assets", "/v1/withdrawals/nothing-here?x=1"} {
		for _, kind := range []simulator.FaultKind{"", simulator.FaultError, simulator.FaultErrorAfter, simulator.FaultDropBefore, simulator.FaultDropAfter, simulator.FaultDelay} {
			if kind != "" {
				path, _, _ := strings.Cut(target, "?")
				if err := sim.Faults.Inject(simulator.Fault{Method: "GET", Path: path, Kind: kind, Status: 504, DelayMS: 1}); err != nil {
					t.Fatal(kind, err)
				}
			}
			if resp, err := http.Get(sim.URL() + target); err == nil {
				resp.Body.Close()
			}
			all = append(all, sent{target, string(kind)})
		}
	}
	if resp, err := http.Get(sim.URL() + "/_sim/clock"); err == nil {
		resp.Body.Close()
	}
	all = append(all, sent{"/_sim/clock", ""})

	files, err := filepath.Glob(filepath.Join(dir, "exchanges-*.ndjson"))
	if err != nil || len(files) != 1 {
		t.Fatalf("log files %v, %v; want one", files, err)
	}
	b := waitLines(t, files[0], len(all))
	var got []sent
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var x simulator.Exchange
		if err := json.Unmarshal([]byte(line), &x); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, sent{x.Request.Target, x.Fault})
		if dropped := x.Fault == "drop_before" || x.Fault == "drop_after"; dropped != x.Dropped {
			t.Errorf("%s with fault %q: dropped %v", x.Request.Target, x.Fault, x.Dropped)
		}
	}
	// A dropped-after exchange is logged when its handler ends, which can
	// be after the client has moved on to the next request: the order of
	// the lines is not the order sent, so they are compared as sets.
	bySent := cmpopts.SortSlices(func(a, b sent) bool { return a.target+" "+a.want < b.target+" "+b.want })
	if diff := cmp.Diff(all, got, cmp.AllowUnexported(sent{}), bySent); diff != "" {
		t.Errorf("fault marks of the exchange log (-sent +logged):\n%s", diff)
	}
}

// waitLines returns the log file once it holds n lines. A dropped exchange
// is written when its handler ends, which can be after the client has seen
// the connection close, so the last lines may come a moment later.
func waitLines(t *testing.T, file string, n int) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b, []byte("\n")) >= n || time.Now().After(deadline) {
			return b
		}
		time.Sleep(5 * time.Millisecond)
	}
}
