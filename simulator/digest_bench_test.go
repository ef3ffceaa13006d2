package simulator

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// digestInputs is the number of requests of the state the digest
// benchmark hashes.
const digestInputs = 20_000

// digestState builds, once, a simulator that has served digestInputs
// requests: signed deposits and deposit lists of the fixture member, the
// clock moving a second every 40 requests (the traffic of restartDir).
var digestState = sync.OnceValues(func() (*Simulator, error) {
	s := mustNewHandler()
	tok, err := inProcessToken(s)
	if err != nil {
		return nil, err
	}
	for i := 1; s.wiring.rec.Seq() < digestInputs; i++ {
		if i%4 == 0 {
			if w := inProcessGet(s, tok, "/v1/deposits?limit=5", DefaultMemberExternalID); w.Code >= 300 {
				return nil, fmt.Errorf("request %d: %d %s", i, w.Code, w.Body)
			}
		} else {
			body := []byte(`{"asset":"USDT","amount":"1","reference":"bench-` + strconv.Itoa(i) + `"}`)
			key := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			if w := inProcessSigned(s, tok, "/v1/deposits", DefaultMemberExternalID, key, body); w.Code >= 300 {
				return nil, fmt.Errorf("request %d: %d %s", i, w.Code, w.Body)
			}
		}
		if i%40 == 0 {
			s.Clock.Advance(time.Second)
		}
	}
	return s, nil
})

// BenchmarkDigest is the cost of the state digest (GET /_sim/digest, a
// recording's end line) at a state of 20,000 requests: the capture, the
// projection of the tables into the image of recordings of versions 1
// and 2, its encoding and its hash.
//
//	go test -run '^$' -bench Digest -benchmem ./simulator
func BenchmarkDigest(b *testing.B) {
	s, err := digestState()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Digest(); err != nil {
			b.Fatal(err)
		}
	}
}
