package simulator_test

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// served are the ways New serves a simulator.
var served = []struct {
	name  string
	opts  []simulator.Option
	proto string // the protocol Client and HTTPClient speak
	https bool
}{
	{"http1", nil, "HTTP/1.1", false},
	{"http1-tls", []simulator.Option{simulator.WithTLS()}, "HTTP/1.1", true},
	{"h2", []simulator.Option{simulator.WithHTTP2()}, "HTTP/2.0", true},
}

// h2client sends business requests the way an integration with net/http
// would, except that net/http may never send one again by itself: its body
// cannot be rewound (GetBody nil), so a dropped request shows as the error
// net/http saw.
type h2client struct {
	t   *testing.T
	sim *simulator.Simulator
	hc  *http.Client
	tok string
	n   int
}

func newH2Client(t *testing.T, sim *simulator.Simulator) *h2client {
	c := &h2client{t: t, sim: sim, hc: sim.HTTPClient()}
	resp, err := c.do(http.MethodPost, "/v1/connect/token", nil, http.Header{"X-Client-Id": {sim.Credentials().ClientID}, "X-Api-Key": {sim.Credentials().APIKey}})
	if err != nil || resp.status != 200 {
		t.Fatalf("token: %v %+v", err, resp)
	}
	var tok struct {
		AuthToken string `json:"auth_token"`
	}
	_ = json.Unmarshal(resp.body, &tok)
	c.tok = tok.AuthToken
	return c
}

type h2result struct {
	status int
	proto  string
	body   []byte
	reused bool // sent on a connection used before
}

func (c *h2client) do(method, path string, body []byte, h http.Header) (h2result, error) {
	req, err := http.NewRequest(method, c.sim.URL()+path, io.NopCloser(bytes.NewReader(body)))
	if err != nil {
		c.t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.GetBody = nil
	req.Header = h
	var res h2result
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { res.reused = i.Reused }}))
	resp, err := c.hc.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.status, res.proto = resp.StatusCode, resp.Proto
	res.body, err = io.ReadAll(resp.Body)
	return res, err
}

// deposit posts a signed deposit of 7 USDT with the given key.
func (c *h2client) deposit(key string) (h2result, error) {
	body := depositBody("tls-"+key[len(key)-4:], "7")
	c.n++
	ts := strconv.FormatInt(c.sim.Clock.Now().Unix(), 10)
	nonce := "tls-nonce-" + key + "-" + strconv.Itoa(c.n)
	h := http.Header{}
	h.Set("X-Auth-Token", "Bearer "+c.tok)
	h.Set("X-On-Behalf-Of", member1)
	h.Set("X-Idempotency-Key", key)
	h.Set("Content-Type", "application/json")
	h.Set("X-Timestamp", ts)
	h.Set("X-Nonce", nonce)
	h.Set("X-Signature", sign(c.sim.Credentials().SigningKey, "POST", "/v1/deposits", ts, nonce, body))
	return c.do(http.MethodPost, "/v1/deposits", body, h)
}

// TestFaultsOverEachProtocol is the table of what a client sees for each
// fault kind over each protocol, with the balance proving whether the
// request ran. A resend with the same key then executes once in all.
func TestFaultsOverEachProtocol(t *testing.T) {
	t.Parallel()
	type seen struct {
		answer string // "201", "502 upstream_error", or the transport error's telling part
		ran    bool
	}
	kinds := []struct {
		fault simulator.Fault
		want  map[string]seen // by protocol
	}{
		{simulator.Fault{Kind: simulator.FaultError, Status: 502}, map[string]seen{
			"http1": {"502 upstream_error", false}, "http1-tls": {"502 upstream_error", false}, "h2": {"502 upstream_error", false}}},
		{simulator.Fault{Kind: simulator.FaultDropBefore}, map[string]seen{
			"http1": {"EOF", false}, "http1-tls": {"EOF", false}, "h2": {"REFUSED_STREAM", false}}},
		{simulator.Fault{Kind: simulator.FaultDropAfter}, map[string]seen{
			"http1": {"EOF", true}, "http1-tls": {"EOF", true}, "h2": {"INTERNAL_ERROR", true}}},
		{simulator.Fault{Kind: simulator.FaultDelay, DelayMS: 5}, map[string]seen{
			"http1": {"201", true}, "http1-tls": {"201", true}, "h2": {"201", true}}},
	}
	for _, p := range served {
		for _, k := range kinds {
			t.Run(p.name+"/"+string(k.fault.Kind), func(t *testing.T) {
				t.Parallel()
				sim := simtest.Start(t, p.opts...)
				c := newH2Client(t, sim)
				f := k.fault
				f.Method, f.Path = "POST", "/v1/deposits"
				if err := sim.Faults.Inject(f); err != nil {
					t.Fatal(err)
				}
				key := uuidN(42)
				res, err := c.deposit(key)
				got := ""
				switch {
				case err != nil:
					got = err.Error()
				case res.status == 201:
					got = "201"
				default:
					var e struct{ Code string }
					_ = json.Unmarshal(res.body, &e)
					got = strconv.Itoa(res.status) + " " + e.Code
				}
				want := k.want[p.name]
				if !strings.Contains(got, want.answer) {
					t.Errorf("the client saw %q, want %q", got, want.answer)
				}
				bal := "1000.000000"
				if want.ran {
					bal = "1007.000000"
				}
				if b := balance(sim, member1, "USDT"); b != bal {
					t.Errorf("balance %s, want %s", b, bal)
				}
				again, err := c.deposit(key)
				if err != nil || again.status != 201 || again.proto != p.proto {
					t.Fatalf("resend: %v %+v, want 201 over %s", err, again, p.proto)
				}
				if b := balance(sim, member1, "USDT"); b != "1007.000000" {
					t.Errorf("balance after the resend %s, want one deposit", b)
				}
				if p.name == "h2" && !again.reused {
					t.Error("over HTTP/2 the fault ended the connection; it should end only the stream")
				}
			})
		}
	}
}

// TestHTTP2DropsEndOnlyTheirStream: over HTTP/2 a request held in flight
// on a connection is answered although other requests on the same
// connection are dropped before and after executing meanwhile.
func TestHTTP2DropsEndOnlyTheirStream(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t, simulator.WithHTTP2())
	c := newH2Client(t, sim)
	hold := make(chan struct{})
	held := make(chan string, 1)
	faults := []simulator.Fault{
		{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDelay, Hold: hold, Held: held, DelayMS: 10_000},
		{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropBefore},
		{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter},
	}
	for _, f := range faults {
		if err := sim.Faults.Inject(f); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var slow h2result
	var slowErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		slow, slowErr = c.deposit(uuidN(1))
	}()
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the held request never arrived")
	}
	for i, want := range []string{"REFUSED_STREAM", "INTERNAL_ERROR"} {
		if _, err := c.deposit(uuidN(2 + i)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("drop %d: %v, want %s", i, err, want)
		}
	}
	close(hold)
	wg.Wait()
	if slowErr != nil || slow.status != 201 || slow.proto != "HTTP/2.0" {
		t.Fatalf("the held request: %v %+v, want 201 over HTTP/2", slowErr, slow)
	}
	// The held deposit and the one dropped after executing ran; the
	// refused one did not.
	if b := balance(sim, member1, "USDT"); b != "1014.000000" {
		t.Errorf("balance %s, want 1014.000000", b)
	}
}

func TestServedOverTLS(t *testing.T) {
	t.Parallel()
	for _, p := range served {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			sim, client := simtest.New(t, p.opts...)
			if strings.HasPrefix(sim.URL(), "https://") != p.https {
				t.Errorf("URL %s", sim.URL())
			}
			if (sim.Certificate() != nil) != p.https {
				t.Errorf("Certificate %v", sim.Certificate())
			}
			if _, err := client.Assets(t.Context()); err != nil {
				t.Fatal(err)
			}
			resp, err := sim.HTTPClient().Get(sim.URL() + "/_sim/clock")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Proto != p.proto {
				t.Errorf("proto %s, want %s", resp.Proto, p.proto)
			}
			if !p.https {
				return
			}
			// Any client that trusts Certificate reaches it.
			pool := x509.NewCertPool()
			pool.AddCert(sim.Certificate())
			for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
				if err := sim.Certificate().VerifyHostname(host); err != nil {
					t.Error(err)
				}
			}
			if _, err := sim.Certificate().Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
				t.Error(err)
			}
		})
	}
}
