package simulator_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// benchRaw starts a simulator and a raw client with keep-alive connections.
func benchRaw(b *testing.B) (*simulator.Simulator, *raw) {
	b.Helper()
	sim := simulator.MustNew()
	b.Cleanup(sim.Close)
	return sim, &raw{t: b, sim: sim, hc: &http.Client{}, creds: sim.Credentials()}
}

// bare serves fixed bytes with the same headers shape, the baseline the
// simulator's gateway is measured against.
func bare(b *testing.B, status int, body []byte) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_1")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func doBench(b *testing.B, hc *http.Client, req *http.Request, body []byte, want int) {
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("status %d, want %d", resp.StatusCode, want)
	}
}

// BenchmarkAssets is an authenticated GET /v1/assets over loopback HTTP,
// through the simulator and through a bare handler answering the same bytes.
func BenchmarkAssets(b *testing.B) {
	b.Run("simulator", func(b *testing.B) {
		sim, c := benchRaw(b)
		tok := c.token()
		req, _ := http.NewRequest(http.MethodGet, sim.URL()+"/v1/assets", nil)
		req.Header = authed(tok)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			doBench(b, c.hc, req, nil, 200)
		}
	})
	b.Run("bare", func(b *testing.B) {
		_, c := benchRaw(b)
		body := c.get(c.token(), "/v1/assets", "").raw
		req, _ := http.NewRequest(http.MethodGet, bare(b, 200, body)+"/v1/assets", nil)
		hc := &http.Client{}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			doBench(b, hc, req, nil, 200)
		}
	})
}

// BenchmarkAssetsInProcess serves GET /v1/assets without the network, so the
// figure is the simulator's own cost (gateway plus handler).
func BenchmarkAssetsInProcess(b *testing.B) {
	sim, c := benchRaw(b)
	h := authed(c.token())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodGet, "/v1/assets", nil)
		req.Header = h
		w := httptest.NewRecorder()
		sim.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// BenchmarkSignedWrite is a signed idempotent POST /v1/kyc/profile-sessions
// (no body; a new key and nonce each time, so every request executes),
// through the simulator and through a bare handler answering the same bytes.
func BenchmarkSignedWrite(b *testing.B) {
	const target = "/v1/kyc/profile-sessions"
	b.Run("simulator", func(b *testing.B) {
		sim, c := benchRaw(b)
		tok := c.token()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			h := authed(tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			c.signed(h, "POST", target, nil)
			req, _ := http.NewRequest(http.MethodPost, sim.URL()+target, nil)
			req.Header = h
			doBench(b, c.hc, req, nil, 201)
		}
	})
	b.Run("bare", func(b *testing.B) {
		_, c := benchRaw(b)
		first := c.write(c.token(), "POST", target, member1, uuidN(0), nil)
		url := bare(b, 201, first.raw) + target
		hc := &http.Client{}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			h := authed("tok")
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			c.signed(h, "POST", target, nil)
			req, _ := http.NewRequest(http.MethodPost, url, nil)
			req.Header = h
			doBench(b, hc, req, nil, 201)
		}
	})
}

// BenchmarkSignedDeposit is a signed idempotent POST /v1/deposits (a new key,
// nonce and reference each time, so every request executes and moves money),
// through the simulator and through a bare handler answering the same bytes.
func BenchmarkSignedDeposit(b *testing.B) {
	b.Run("simulator", func(b *testing.B) {
		sim, c := benchRaw(b)
		tok := c.token()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			body := depositBody("bench-"+strconv.Itoa(i), "1")
			h := authed(tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			h.Set("Content-Type", "application/json")
			c.signed(h, "POST", "/v1/deposits", body)
			req, _ := http.NewRequest(http.MethodPost, sim.URL()+"/v1/deposits", nil)
			req.Header = h
			doBench(b, c.hc, req, body, 201)
		}
		b.StopTimer()
		if err := sim.CheckLedger(); err != nil {
			b.Fatal(err)
		}
		if err := sim.CheckInvariants(); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("bare", func(b *testing.B) {
		_, c := benchRaw(b)
		first := c.write(c.token(), "POST", "/v1/deposits", member1, uuidN(0), depositBody("bench-0", "1"))
		url := bare(b, 201, first.raw) + "/v1/deposits"
		hc := &http.Client{}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			body := depositBody("bench-"+strconv.Itoa(i), "1")
			h := authed("tok")
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			h.Set("Content-Type", "application/json")
			c.signed(h, "POST", "/v1/deposits", body)
			req, _ := http.NewRequest(http.MethodPost, url, nil)
			req.Header = h
			doBench(b, hc, req, body, 201)
		}
	})
}

// BenchmarkNewClose is the cost of a fresh simulator per test: New (fixture,
// every product line registered, httptest server started) and Close.
func BenchmarkNewClose(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sim := simulator.MustNew()
		sim.Close()
	}
}

// BenchmarkNewHandler is New without the server.
func BenchmarkNewHandler(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := simulator.NewHandler(); err != nil {
			b.Fatal(err)
		}
	}
}
