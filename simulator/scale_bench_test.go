package simulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// The scale benchmarks seed a list of N items straight into the simulator's
// state (outside the timer) and time one page request through the gateway
// and the handler, in process. Page 1 and page N/limit must cost the same
// (keyset pagination), and so must page 1 at N = 1,000 and at N = 100,000.
//
//	go test -run '^$' -bench 'CardTransactionsPage|RemittancesPage' -benchmem ./simulator

const (
	scaleItems = 100_000
	scaleSmall = 1_000
	scaleLimit = 20
)

// scaleCase is one sub-benchmark: the list size and the page asked for.
type scaleCase struct {
	name string
	n    int
	last bool
}

var scaleCases = []scaleCase{
	{"first", scaleItems, false},
	{"last", scaleItems, true},
	{"first-1k", scaleSmall, false},
}

// scaleSim returns a simulator and an access token of its fixture Key,
// obtained through the token endpoint in process.
func scaleSim(tb testing.TB) (*Simulator, string) {
	tb.Helper()
	s := mustNewHandler()
	req := httptest.NewRequest(http.MethodPost, "/v1/connect/token", nil)
	req.Header.Set("X-Client-Id", s.st.creds.ClientID)
	req.Header.Set("X-Api-Key", s.st.creds.APIKey)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var out struct {
		Token string `json:"auth_token"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK || out.Token == "" {
		tb.Fatalf("token exchange: %d %s", w.Code, w.Body)
	}
	return s, out.Token
}

// getPage serves one member-scoped GET in process and returns the answer.
func getPage(s *Simulator, tok, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("X-Auth-Token", "Bearer "+tok)
	req.Header.Set("X-On-Behalf-Of", DefaultMemberExternalID)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// pageTarget returns the list path for page 1, or for the last page of n
// items (the cursor of page n/limit - 1): items is ascending by key.
func pageTarget[T any](path string, items []T, key func(T) pageKey, last bool) string {
	target := path + "?limit=" + strconv.Itoa(scaleLimit)
	if last {
		target += "&cursor=" + api.EncodeCursor(key(items[scaleLimit]))
	}
	return target
}

// checkPage fails unless the page is 200 with limit items and the expected
// has_more.
func checkPage(tb testing.TB, w *httptest.ResponseRecorder, hasMore bool) {
	tb.Helper()
	var env struct {
		Data    []json.RawMessage `json:"data"`
		HasMore bool              `json:"has_more"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &env) != nil {
		tb.Fatalf("page: %d %s", w.Code, w.Body)
	}
	if len(env.Data) != scaleLimit || env.HasMore != hasMore {
		tb.Fatalf("page: %d items, has_more %v; want %d, %v", len(env.Data), env.HasMore, scaleLimit, hasMore)
	}
}

func benchPage(b *testing.B, s *Simulator, tok, target string, last bool) {
	checkPage(b, getPage(s, tok, target), !last)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if w := getPage(s, tok, target); w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// seedCardTransactions issues a virtual card to the fixture member and adds
// n card transactions to it, one second apart and all in the past. It
// returns the card's id and its transactions, oldest first.
func seedCardTransactions(tb testing.TB, s *Simulator, n int) (string, []cardline.TxRow) {
	tb.Helper()
	tx := s.k.BeginSetup() // history seeded outside any input
	defer tx.End()
	id, err := s.st.cards.SeedHistory(tx, s.st.members.ByExternal(tx, DefaultMemberExternalID), n)
	if err != nil {
		tb.Fatal(err)
	}
	return id, s.st.cards.Transactions(tx, id)
}

// BenchmarkCardTransactionsPage is GET /v1/cards/{id}/transactions?limit=20
// on a card with 100,000 transactions: the first page, the last page, and
// the first page of a card with 1,000.
func BenchmarkCardTransactionsPage(b *testing.B) {
	for _, bc := range scaleCases {
		b.Run(bc.name, func(b *testing.B) {
			s, tok := scaleSim(b)
			card, txs := seedCardTransactions(b, s, bc.n)
			target := pageTarget("/v1/cards/"+card+"/transactions", txs, cardline.TxRow.Key, bc.last)
			benchPage(b, s, tok, target, bc.last)
		})
	}
}

// seedRemittances stores n settled remittance orders of the fixture member,
// one second apart and all in the past (the ledger is not involved: they
// are history).
func seedRemittances(tb testing.TB, s *Simulator, n int) {
	tb.Helper()
	tx := s.k.BeginSetup() // history seeded outside any input
	defer tx.End()
	s.st.remit.SeedHistory(tx, s.st.members.ByExternal(tx, DefaultMemberExternalID), n)
}

// remitOrders is a copy of the remittance orders, oldest first.
func remitOrders(s *Simulator) []remittances.Order {
	tx := s.k.Begin()
	defer tx.End()
	return s.st.remit.Orders(tx)
}

// BenchmarkRemittancesPage is GET /v1/remittances?limit=20 for a member with
// 100,000 remittances: the first page, the last page, and the first page of
// a member with 1,000.
func BenchmarkRemittancesPage(b *testing.B) {
	for _, bc := range scaleCases {
		b.Run(bc.name, func(b *testing.B) {
			s, tok := scaleSim(b)
			seedRemittances(b, s, bc.n)
			target := pageTarget("/v1/remittances", remitOrders(s), remittances.Order.Key, bc.last)
			benchPage(b, s, tok, target, bc.last)
		})
	}
}

// TestScalePagesWalk checks the pages the scale benchmarks time against a
// full walk: following next_cursor from page 1 visits every seeded item
// once, newest first, and the benchmark's last-page cursor lands on the
// final page of that walk.
func TestScalePagesWalk(t *testing.T) {
	t.Parallel()
	const n = 5*scaleLimit + 3
	s, tok := scaleSim(t)
	card, cardTxs := seedCardTransactions(t, s, n)
	seedRemittances(t, s, n)
	for _, tc := range []struct {
		name, path string
		ids        []string // ascending
		lastTarget string
	}{
		{"card transactions", "/v1/cards/" + card + "/transactions", idsOf(cardTxs, func(t cardline.TxRow) string { return t.ID }),
			pageTarget("/v1/cards/"+card+"/transactions", cardTxs, cardline.TxRow.Key, true)},
		{"remittances", "/v1/remittances", idsOf(remitOrders(s), func(o remittances.Order) string { return o.ID }),
			pageTarget("/v1/remittances", remitOrders(s), remittances.Order.Key, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var lastPage []byte
			target := tc.path + "?limit=" + strconv.Itoa(scaleLimit)
			for pages := 0; ; pages++ {
				if pages > n {
					t.Fatal("the walk does not end")
				}
				w := getPage(s, tok, target)
				var env struct {
					Data []struct {
						ID string `json:"id"`
					} `json:"data"`
					NextCursor *string `json:"next_cursor"`
					HasMore    bool    `json:"has_more"`
				}
				if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &env) != nil {
					t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
				}
				for _, d := range env.Data {
					got = append(got, d.ID)
				}
				if !env.HasMore {
					lastPage = w.Body.Bytes()
					break
				}
				if env.NextCursor == nil {
					t.Fatalf("GET %s: has_more without next_cursor", target)
				}
				target = tc.path + "?limit=" + strconv.Itoa(scaleLimit) + "&cursor=" + *env.NextCursor
			}
			if len(got) != len(tc.ids) {
				t.Fatalf("walk visited %d items, want %d", len(got), len(tc.ids))
			}
			for i, id := range got {
				if want := tc.ids[len(tc.ids)-1-i]; id != want {
					t.Fatalf("item %d = %s, want %s (newest first)", i, id, want)
				}
			}
			// The benchmark's last page is the tail of the walk: the oldest
			// limit items, without has_more.
			w := getPage(s, tok, tc.lastTarget)
			var last, final struct {
				Data    []json.RawMessage `json:"data"`
				HasMore bool              `json:"has_more"`
			}
			if json.Unmarshal(w.Body.Bytes(), &last) != nil || json.Unmarshal(lastPage, &final) != nil {
				t.Fatalf("undecodable pages: %s / %s", w.Body, lastPage)
			}
			if len(last.Data) != scaleLimit || last.HasMore {
				t.Fatalf("last page: %d items, has_more %v", len(last.Data), last.HasMore)
			}
			tail := last.Data[len(last.Data)-len(final.Data):]
			for i := range final.Data {
				if !bytes.Equal(tail[i], final.Data[i]) {
					t.Fatalf("last page item %d differs from the walk's final page", i)
				}
			}
		})
	}
	if err := s.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}
