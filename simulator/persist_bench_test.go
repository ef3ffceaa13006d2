package simulator

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// The restart benchmarks time starting a simulator on a data directory
// whose log holds 100,000 recorded requests (built once per process,
// outside the timer): from the log alone, and from a snapshot taken at
// request 90,000 plus the 10,000 after it (a restart never has more than
// WithSnapshotEvery - 1 inputs after the last snapshot; the default is
// 10,000).
//
//	go test -run '^$' -bench Restart -benchtime 3x -benchmem ./simulator

const (
	restartInputs   = 100_000
	restartSnapshot = 90_000
)

// restartDir builds, once, a data directory with a log of restartInputs
// requests: signed deposits, deposit lists, card applications and QR
// decodes of the fixture member, the clock moving a second every 40
// requests (so the nonce and idempotency windows turn over as they would).
//
// MWALLET_RESTART_BENCH_DIR, when set, keeps the directory there and reuses
// it in later runs; otherwise TestMain removes it when the run ends.
var restartDir = sync.OnceValues(func() (string, error) {
	dir := os.Getenv("MWALLET_RESTART_BENCH_DIR")
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, datadir.SnapshotName+".keep")); err == nil {
			return dir, nil
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "mwallet-restart-bench-"); err != nil {
			return "", err
		}
		restartTemp.Store(&dir)
	}
	s, err := NewHandler()
	if err != nil {
		return "", err
	}
	tok, err := inProcessToken(s)
	if err != nil {
		return "", err
	}
	for i := 1; s.wiring.rec.Seq() < restartInputs; i++ {
		var w *httptest.ResponseRecorder
		switch i % 4 {
		case 0:
			w = inProcessGet(s, tok, "/v1/deposits?limit=5", DefaultMemberExternalID)
		default:
			body := []byte(`{"asset":"USDT","amount":"1","reference":"bench-` + strconv.Itoa(i) + `"}`)
			w = inProcessSigned(s, tok, "/v1/deposits", DefaultMemberExternalID, fmt.Sprintf("00000000-0000-4000-8000-%012d", i), body)
		}
		if w.Code >= 300 {
			return "", fmt.Errorf("request %d: %d %s", i, w.Code, w.Body)
		}
		if i%40 == 0 {
			s.Clock.Advance(time.Second)
		}
		if i%40_000 == 0 { // tokens live 30 minutes of the clock
			if tok, err = inProcessToken(s); err != nil {
				return "", err
			}
		}
	}
	rec, err := s.Recording()
	if err != nil {
		return "", err
	}
	st, err := datadir.Open(dir, io.Discard, 0, datadir.CheckConfig[recordingConfig])
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := st.Create(rec.f.Header); err != nil {
		return "", err
	}
	var snapOff, snapLast int64
	for _, in := range rec.f.Inputs {
		last := st.Written()
		end, err := st.Append(in)
		if err != nil {
			return "", err
		}
		if in.Seq == restartSnapshot {
			snapOff, snapLast = end, last
		}
	}
	if err := st.Durable(st.Written()); err != nil {
		return "", err
	}
	// The snapshot: the state after input restartSnapshot.
	at, err := New(WithRecording(&Recording{f: recfile.File[recordingConfig]{Header: rec.f.Header, Inputs: rec.f.Inputs[:restartSnapshot], End: rec.f.Inputs[restartSnapshot-1].Clock}}))
	if err != nil {
		return "", err
	}
	defer at.Close()
	img, err := namedState(at)
	clock := at.st.clock.Now()
	if err != nil {
		return "", err
	}
	meta := datadir.Meta{Format: datadir.SnapshotFormat, Version: datadir.SnapshotVersion, Seq: restartSnapshot, Offset: snapOff,
		LastFrame: snapLast, Clock: clock, Size: len(img), CRC: datafile.CRC(img)}
	if err := st.WriteSnapshot(meta, func(w io.Writer) error { _, err := w.Write(img); return err }, nil); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(dir, datadir.SnapshotName), filepath.Join(dir, datadir.SnapshotName+".keep")); err != nil {
		return "", err
	}
	return dir, nil
})

// restartTemp is the directory restartDir made, to remove at the end.
var restartTemp atomic.Pointer[string]

func TestMain(m *testing.M) {
	code := m.Run()
	if dir := restartTemp.Load(); dir != nil {
		_ = os.RemoveAll(*dir)
	}
	os.Exit(code)
}

func BenchmarkRestart(b *testing.B) {
	dir, err := restartDir()
	if err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(dir, datadir.LogName))
	snap, _ := os.Stat(filepath.Join(dir, datadir.SnapshotName+".keep"))
	b.Logf("log: %d requests, %d bytes; snapshot at request %d: %d bytes", restartInputs, info.Size(), restartSnapshot, snap.Size())
	for _, c := range []struct {
		name     string
		snapshot bool
	}{
		{"log-only-100k", false},
		{"snapshot-90k+tail-10k", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			// A data directory of the log (and the snapshot): the
			// directory restartDir built also keeps the snapshot aside,
			// a file no data directory holds.
			data := b.TempDir()
			files := map[string]string{datadir.LogName: datadir.LogName}
			if c.snapshot {
				files[datadir.SnapshotName+".keep"] = datadir.SnapshotName
			}
			for from, to := range files {
				f, err := os.ReadFile(filepath.Join(dir, from))
				if err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(data, to), f, 0o600); err != nil {
					b.Fatal(err)
				}
			}
			var diag bytes.Buffer
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				diag.Reset()
				s, err := New(WithDataDir(data), WithSnapshotEvery(0), WithDiagnostics(&diag))
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if s.wiring.rec.Seq() != restartInputs {
					b.Fatalf("restarted at input %d", s.wiring.rec.Seq())
				}
				s.Close()
				b.StartTimer()
			}
			b.StopTimer()
			b.Log(diag.String())
		})
	}
}

// BenchmarkSnapshot is the cost of taking the snapshot at 90,000 requests
// (capturing the state under the state lock, then encoding the capture
// without it) and of reading it back.
func BenchmarkSnapshot(b *testing.B) {
	dir, err := restartDir()
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, datadir.SnapshotName+".keep"))
	if err != nil {
		b.Fatal(err)
	}
	img := data[bytes.IndexByte(data, '\n')+1:]
	s := mustNewHandler()
	if err := s.wiring.image.readState(bytes.NewReader(img)); err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		tmp := b.TempDir()
		b.ReportAllocs()
		cpu := startCPU(b)
		for i := 0; i < b.N; i++ {
			// As a snapshot writes it: streamed to a file, checksummed.
			f, err := datafile.CreateStream(filepath.Join(tmp, "snapshot"), datadir.SnapshotHead)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.wiring.image.writeState(f, s.wiring.image.capture(false)); err != nil {
				b.Fatal(err)
			}
			if err := f.Finish(make([]byte, datadir.SnapshotHead)); err != nil {
				b.Fatal(err)
			}
		}
		cpu()
		b.ReportMetric(float64(len(img)), "image-bytes")
	})
	// capture is what a snapshot holds the state lock for (the encoding
	// runs from the capture, without it), and its release.
	b.Run("capture", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s.wiring.image.capture(false).Release()
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		var last *Simulator
		cpu := startCPU(b)
		for i := 0; i < b.N; i++ {
			last = mustNewHandler()
			if err := last.wiring.image.readState(bytes.NewReader(img)); err != nil {
				b.Fatal(err)
			}
		}
		cpu()
		// What was read writes the same state back.
		b.StopTimer()
		again, err := namedState(last)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(again, img) {
			b.Fatalf("the image read back writes %d bytes that differ from the %d read", len(again), len(img))
		}
	})
}

// startCPU starts measuring the CPU time of the process; the function it
// returns reports it per operation as cpu-ns/op (where it is measured).
// On a machine shared with other jobs, the wall time of a run depends on
// the others' load much more than the CPU time it uses.
func startCPU(b *testing.B) func() {
	b.Helper()
	start, ok := processCPU()
	return func() {
		if end, _ := processCPU(); ok {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func inProcessToken(s *Simulator) (string, error) {
	req := httptest.NewRequest(http.MethodPost, "/v1/connect/token", nil)
	req.Header.Set("X-Client-Id", s.st.creds.ClientID)
	req.Header.Set("X-Api-Key", s.st.creds.APIKey)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var out struct {
		Token string `json:"auth_token"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Token == "" {
		return "", fmt.Errorf("token exchange: %d %s", w.Code, w.Body)
	}
	return out.Token, nil
}

func inProcessGet(s *Simulator, tok, target, member string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("X-Auth-Token", "Bearer "+tok)
	req.Header.Set("X-On-Behalf-Of", member)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// inProcessSigned sends a signed idempotent POST in process, signed with
// the simulator clock and a nonce of its key.
func inProcessSigned(s *Simulator, tok, target, member, key string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	ts := strconv.FormatInt(s.Clock.Now().Unix(), 10)
	nonce := "n-" + key
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(s.st.creds.SigningKey))
	m.Write([]byte("POST\n" + target + "\n" + ts + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	req.Header.Set("X-Auth-Token", "Bearer "+tok)
	req.Header.Set("X-On-Behalf-Of", member)
	req.Header.Set("X-Idempotency-Key", key)
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Nonce", nonce)
	req.Header.Set("X-Signature", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}
