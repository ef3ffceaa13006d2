package simulator_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// openDir starts a simulator on the data directory dir; diagnostics go to
// diag.
func openDir(t *testing.T, dir string, diag *bytes.Buffer, opts ...simulator.Option) *simulator.Simulator {
	t.Helper()
	opts = append([]simulator.Option{simulator.WithDataDir(dir), simulator.WithDiagnostics(diag)}, opts...)
	sim, err := simulator.New(opts...)
	if err != nil {
		t.Fatalf("New on %s: %v", dir, err)
	}
	return sim
}

// TestDataDirRestartKeepsState runs every kind of input against a
// simulator with a data directory, closes it, and starts another on the
// directory: the state is the same, with the log only and with a
// snapshot and the log's tail.
func TestDataDirRestartKeepsState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		every int
	}{
		{"log only", 0},
		{"snapshot and tail", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var diag bytes.Buffer
			sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(tc.every))
			e := newEdgeOn(t, sim)
			scenario(t, e)
			live := openReference(t, sim)
			sim.Close()
			_, err := os.Stat(filepath.Join(dir, "snapshot"))
			if (tc.every > 0) != (err == nil) {
				t.Errorf("snapshot file: %v (snapshot every %d)", err, tc.every)
			}

			again := openDir(t, dir, &diag, simulator.WithSnapshotEvery(tc.every))
			t.Cleanup(again.Close)
			sameState(t, live, again)
			if !strings.Contains(diag.String(), "restarted at input") {
				t.Errorf("diagnostics: %q", diag.String())
			}
			if tc.every > 0 && !strings.Contains(diag.String(), "snapshot of input") {
				t.Errorf("the restart did not use the snapshot: %q", diag.String())
			}
			// The restarted simulator's recording is the whole log: a
			// replay of it reaches the same state too.
			sameState(t, again, replayOf(t, again))
		})
	}
}

// newEdgeOn is newEdge on a simulator the test started itself.
func newEdgeOn(t *testing.T, sim *simulator.Simulator) *edge {
	t.Helper()
	return &edge{t: t, sim: sim, raw: rawFor(t, sim), ctx: context.Background(),
		c: sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))}
}

// rawFor is a raw client of a simulator the test started itself.
func rawFor(t *testing.T, sim *simulator.Simulator) *raw {
	return &raw{t: t, sim: sim, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, creds: sim.Credentials()}
}

// openReference returns a simulator in the state of sim (a replay of its
// recording) that stays open after sim closes.
func openReference(t *testing.T, sim *simulator.Simulator) *simulator.Simulator {
	t.Helper()
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := simulator.New(simulator.WithRecording(rec))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ref.Close)
	sameState(t, sim, ref)
	return ref
}

// TestDataDirLock refuses a second simulator on a directory in use, and
// lets one start once the first is closed.
func TestDataDirLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	first := openDir(t, dir, &diag)
	_, err := simulator.New(simulator.WithDataDir(dir))
	if err == nil || !strings.Contains(err.Error(), "in use by another simulator") {
		t.Fatalf("second simulator on %s: %v, want refused", dir, err)
	}
	first.Close()
	second := openDir(t, dir, &diag)
	second.Close()
}

// TestDataDirRefusesOtherOptions refuses to continue a log with options
// that shape another fixture, naming them and showing no credential.
func TestDataDirRefusesOtherOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	openDir(t, dir, &diag).Close()
	_, err := simulator.New(simulator.WithDataDir(dir), simulator.WithSeed(2), simulator.WithCredentials(simulator.Credentials{APIKey: "other-key-value"}))
	if err == nil || !strings.Contains(err.Error(), "seed") || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("New with another seed and key: %v", err)
	}
	if strings.Contains(err.Error(), "other-key-value") || strings.Contains(err.Error(), simulator.DefaultAPIKey) {
		t.Errorf("the error shows a credential: %v", err)
	}
	// A recording is replayed only into an empty directory.
	rec, err := simtest.Start(t).Recording()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := simulator.New(simulator.WithDataDir(dir), simulator.WithRecording(rec)); err == nil {
		t.Error("a recording was replayed into a directory holding a log")
	}
}

// TestDataDirTornTail cuts the log at every byte of its last input and
// corrupts a byte of it: the restart keeps every whole input before it,
// discards the rest, says so, and appends after the last whole input.
func TestDataDirTornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(0))
	rc := rawFor(t, sim)
	tok := rc.token()
	wantStatus(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("torn-1", "5")), http.StatusCreated)
	sim.Close()
	whole, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	sim = openDir(t, dir, &diag, simulator.WithSnapshotEvery(0))
	rc.sim = sim
	ref := openReference(t, sim)
	wantStatus(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(2), depositBody("torn-2", "7")), http.StatusCreated)
	sim.Close()
	full, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= len(whole) {
		t.Fatalf("log did not grow: %d then %d bytes", len(whole), len(full))
	}
	// The second simulator served at another address: the log holds a
	// base_url input, then the deposit. The cuts fall in the deposit's
	// frame, the last one.
	last := 0
	for off := 0; off < len(full); off += 8 + int(binary.LittleEndian.Uint32(full[off:])) {
		last = off
	}
	if last < len(whole) {
		t.Fatalf("last frame at %d, before the first simulator's end %d", last, len(whole))
	}
	whole = full[:last]
	cuts := []int{}
	for n := len(whole) + 1; n < len(full); n += max(1, (len(full)-len(whole))/23) {
		cuts = append(cuts, n)
	}
	for _, n := range cuts {
		tdir := t.TempDir()
		corrupt := append([]byte(nil), full[:n]...)
		if err := os.WriteFile(filepath.Join(tdir, "log"), corrupt, 0o600); err != nil {
			t.Fatal(err)
		}
		var d bytes.Buffer
		got := openDir(t, tdir, &d, simulator.WithSnapshotEvery(0))
		sameState(t, ref, got)
		if !strings.Contains(d.String(), "discarded") {
			t.Errorf("cut at %d: diagnostics %q", n, d.String())
		}
		got.Close()
		if fi, _ := os.Stat(filepath.Join(tdir, "log")); fi.Size() != int64(len(whole)) {
			t.Errorf("cut at %d: log is %d bytes after the restart, want the %d whole ones", n, fi.Size(), len(whole))
		}
	}
	// A flipped byte inside the last input (its CRC no longer matches) is
	// not what a crash leaves: the start is refused and changes nothing;
	// a repair cuts the input and keeps the rest.
	tdir := t.TempDir()
	corrupt := append([]byte(nil), full...)
	corrupt[len(whole)+20] ^= 0x5a
	if err := os.WriteFile(filepath.Join(tdir, "log"), corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = simulator.New(simulator.WithDataDir(tdir), simulator.WithDiagnostics(&bytes.Buffer{}), simulator.WithSnapshotEvery(0))
	var de *simulator.DataDirError
	if !errors.As(err, &de) || de.Offset != int64(len(whole)) || de.Reason != "checksum mismatch" {
		t.Fatalf("a corrupt last input: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(tdir, "log")); !bytes.Equal(b, corrupt) {
		t.Error("the refused start changed the log")
	}
	if _, err := simulator.RepairDataDir(tdir); err != nil {
		t.Fatal(err)
	}
	var d bytes.Buffer
	got := openDir(t, tdir, &d, simulator.WithSnapshotEvery(0))
	sameState(t, ref, got)
	got.Close()
}

// TestDataDirRefusesWhatItCannotRecord fails the log's writes (a full
// disk): every request is refused with service_unavailable (envelope,
// X-Request-Id, Retry-After), nothing runs, and once the disk takes writes
// again the same request executes. A failed fsync refuses everything until
// a restart; the restart keeps exactly what was answered.
func TestDataDirRefusesWhatItCannotRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag)
	rc := rawFor(t, sim)
	tok := rc.token()
	wantStatus(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("ok-1", "5")), http.StatusCreated)
	before, digest := fingerprint(t, sim), mustDigest(t, sim)
	journal := len(sim.Requests.List())

	restore := simulator.FailingLog(sim, errors.New("no space left on device"), nil)
	refused := []result{
		rc.write(tok, "POST", "/v1/deposits", member1, uuidN(2), depositBody("full-2", "7")),
		rc.get(tok, "/v1/assets", ""),
		rc.control("POST", "/_sim/members", map[string]any{"external_member_id": "full-m"}),
	}
	for i, r := range refused {
		wantCode(t, r, http.StatusBadRequest, "service_unavailable")
		checkEnvelope(t, r)
		if r.header.Get("Retry-After") == "" || r.header.Get("X-Request-Id") == "" {
			t.Errorf("refusal %d: headers %v", i, r.header)
		}
	}
	if err := sim.Merchant.TopUpPrepaid("USDT", "1"); err == nil {
		t.Error("a Go call ran although the log refused it")
	}
	// The setters that return nothing else return the refusal too.
	for name, call := range map[string]func() error{
		"Cards.SetLimit":             func() error { return sim.Cards.SetLimit("virtual", 9) },
		"Cards.SetBINAuthorizations": func() error { return sim.Cards.SetBINAuthorizations("411111") },
		"Faults.Clear":               sim.Faults.Clear,
		"KYC.SetQuick":               func() error { return sim.KYC.SetQuick(true, 3) },
		"Merchant.SetPOBOSubaccount": func() error { return sim.Merchant.SetPOBOSubaccount(false) },
		"Outcomes.Set":               func() error { return sim.Outcomes.Set(simulator.CollectionQROrders, simulator.Immediate()) },
		"Outcomes.SetObject":         func() error { return sim.Outcomes.SetObject("qr_none", simulator.Immediate()) },
		"QRPay.SetEnabled":           func() error { return sim.QRPay.SetEnabled(false) },
		"Requests.Reset":             sim.Requests.Reset,
		"Webhooks.SetAutoDeliver":    func() error { return sim.Webhooks.SetAutoDeliver(true) },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("%s under a full disk: %v, want the refusal", name, err)
		}
	}
	// Every knob that calls the Go control API is refused the same way
	// over HTTP (not answered invalid_request, nor 200 for a setter that
	// did not run).
	for _, k := range knobBodies(member1, "none") {
		var body map[string]any
		if err := json.Unmarshal([]byte(k.base), &body); err != nil {
			t.Fatal(err)
		}
		r := rc.control(k.method, k.path, body)
		wantCode(t, r, http.StatusBadRequest, "service_unavailable")
		if r.header.Get("Retry-After") == "" {
			t.Errorf("%s %s refused without Retry-After", k.method, k.path)
		}
	}
	unchanged(t, sim, before)
	if d := mustDigest(t, sim); d != digest {
		t.Error("the refused inputs changed the state (digest)")
	}
	if n := len(sim.Requests.List()); n != journal {
		t.Errorf("journal %d rows after refusals, want %d", n, journal)
	}
	if !strings.Contains(diag.String(), "no space left on device") {
		t.Errorf("diagnostics: %q", diag.String())
	}
	restore()
	// The same request, same key: it was never executed, so it executes now.
	r := rc.write(tok, "POST", "/v1/deposits", member1, uuidN(2), depositBody("full-2", "7"))
	wantStatus(t, r, http.StatusCreated)
	if r.header.Get("X-Idempotent-Replay") != "" {
		t.Error("the resend was answered as a replay of a request that never ran")
	}
	answered := openReference(t, sim)
	answeredDigest := mustDigest(t, answered)

	// A failed fsync: the request ran but is not durable, so it is not
	// answered as done, and everything after it is refused.
	simulator.FailingLog(sim, nil, errors.New("input/output error"))
	wantCode(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(3), depositBody("eio-3", "9")), http.StatusBadRequest, "service_unavailable")
	wantCode(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(4), depositBody("eio-4", "9")), http.StatusBadRequest, "service_unavailable")
	sim.Close()
	again := openDir(t, dir, &diag)
	t.Cleanup(again.Close)
	for _, ref := range []string{"ok-1", "full-2"} {
		if !strings.Contains(fingerprint(t, again), ref) {
			t.Errorf("answered deposit %s lost across the restart", ref)
		}
	}
	if strings.Contains(fingerprint(t, again), "eio-4") {
		t.Error("a refused deposit is in the restarted state")
	}
	// eio-3 ran and reached the file before its fsync failed (the page
	// cache survives a process restart): it may be there, unanswered; its
	// client resends with the same key and gets it. Without it the state
	// is exactly what was answered.
	if !strings.Contains(fingerprint(t, again), "eio-3") && mustDigest(t, again) != answeredDigest {
		t.Error("the restarted state differs from the answered one")
	}
}

// TestReplayIntoDataDir replays a recording into an empty data directory:
// the directory then holds the same state across a restart.
func TestReplayIntoDataDir(t *testing.T) {
	t.Parallel()
	e := newEdge(t)
	scenario(t, e)
	rec, err := e.sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag, simulator.WithRecording(rec))
	sameState(t, e.sim, sim)
	sim.Close()
	again := openDir(t, dir, &diag)
	t.Cleanup(again.Close)
	sameState(t, e.sim, again)
}

// TestDataDirGoCallNotDurable: a Go control call whose log record ran but
// did not reach stable storage is not answered as done, in Go or over the
// control API (service_unavailable with Retry-After, saying it may not
// survive a restart), and nothing after it runs.
func TestDataDirGoCallNotDurable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func(sim *simulator.Simulator, rc *raw) error
	}{
		{"Go", func(sim *simulator.Simulator, _ *raw) error { return sim.Cards.SetLimit("virtual", 4) }},
		{"control API", func(_ *simulator.Simulator, rc *raw) error {
			r := rc.control("POST", "/_sim/cards/limits", map[string]any{"form_factor": "virtual", "limit": 4})
			if r.status != http.StatusBadRequest || r.code() != "service_unavailable" || r.header.Get("Retry-After") == "" {
				return fmt.Errorf("answered %v", r)
			}
			checkEnvelope(t, r)
			return errors.New(r.body["message"].(string))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var diag bytes.Buffer
			sim := openDir(t, t.TempDir(), &diag)
			t.Cleanup(sim.Close)
			rc := rawFor(t, sim)
			simulator.FailingLog(sim, nil, errors.New("input/output error"))
			err := tc.call(sim, rc)
			if err == nil || !strings.Contains(err.Error(), "durable") || !strings.Contains(err.Error(), "input/output error") {
				t.Fatalf("a call that is not durable: %v, want a refusal saying so", err)
			}
			if err := sim.Cards.SetLimit("physical", 2); err == nil {
				t.Error("a call after the failed fsync ran")
			}
		})
	}
}
