package simulator

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// BenchmarkStoreEntryBytes is the heap one entry of each window store
// holds, as the gateway writes it: a consumed nonce (its key
// "environment|nonce" with a UUID nonce, in the table and the expiry
// queue) and an idempotency record (its key, the body digest, a deposit's
// 201 answer as the simulator gives it, in the table and the expiry queue).
// It fills a store with 200,000 entries and reports the heap growth per
// entry (B/entry); the caps' defaults (DefaultMaxNonces,
// DefaultMaxIdempotencyKeys) are sized from it.
//
//	go test ./simulator -run '^$' -bench StoreEntryBytes -benchtime 1x
func BenchmarkStoreEntryBytes(b *testing.B) {
	const n = 200_000
	body := []byte(`{"id":"dep_8f14e45fceea167a5a36dedd4bea2543","object":"deposit","member_id":"mbr_c9f0f895fb98ab9159f51fd0297e236d","external_member_id":"member-1","asset":"USDT","amount":"1.000000","reference":"load-31-4711","status":"completed","created_at":"2026-11-29T07:50:00Z","completed_at":"2026-11-29T07:50:00Z"}`)
	header := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_123456_abcdefgh"}}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	fill := func(b *testing.B, add func(s *Simulator, tx *kernel.Tx, i int, now time.Time)) float64 {
		var per float64
		for range b.N {
			s := mustNewHandler()
			now := s.st.clock.Now()
			before := heap()
			tx := s.k.BeginSetup()
			for i := range n {
				add(s, tx, i, now)
			}
			tx.End()
			per = float64(heap()-before) / n
			runtime.KeepAlive(s)
		}
		return per
	}
	b.Run("nonce", func(b *testing.B) {
		b.ReportMetric(fill(b, func(s *Simulator, tx *kernel.Tx, i int, now time.Time) {
			k := "sandbox|" + uuid.NewString()
			s.st.gw.Nonces.Put(tx, k, now.Add(pipeline.NonceWindow))
			s.st.gw.NonceQ.Push(tx, k, now.Add(pipeline.NonceWindow))
		}), "B/entry")
	})
	b.Run("idempotency", func(b *testing.B) {
		b.ReportMetric(fill(b, func(s *Simulator, tx *kernel.Tx, i int, now time.Time) {
			k := idempotency.Key("mch_sim_1", uuid.NewString())
			rec := s.st.gw.Idem.Start(tx, k, "POST /v1/deposits", sha256.Sum256([]byte(k)), now)
			s.st.gw.Idem.End(tx, k, rec, idempotency.Answer{Status: 201, Header: header, Body: body}, fmt.Sprintf("req_%d_abcdefgh", i))
		}), "B/entry")
	})
}
