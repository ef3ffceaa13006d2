package services

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type clock struct{}

func (clock) Now() time.Time { return start }

type members map[string]*api.Member

func (m members) Get(_ *kernel.Tx, id string) *api.Member { return m[id] }

// events records what is emitted, as "type object id status version ext".
type events struct{ log []string }

func (e *events) Emit(_ *kernel.Tx, ev kernel.Event, ext string) string {
	e.log = append(e.log, fmt.Sprintf("%s %s %s %s %d %s", ev.Type, ev.Object, ev.ObjectID, ev.Status, ev.Version, ext))
	return fmt.Sprintf("evt_%d", len(e.log))
}

type merchant struct{ refused string }

func (merchant) Model(*kernel.Tx) string                 { return kernel.MerchantHosted }
func (merchant) Env(*kernel.Tx) string                   { return "production" }
func (m merchant) Allows(_ *kernel.Tx, code string) bool { return code != m.refused }

type nocache struct{}

func (nocache) Get(*kernel.Tx) (string, string, bool) { return "", "", false }
func (nocache) Set(*kernel.Tx, string, string)        {}

// fixture is a kernel given Services over a ledger, the fixture's
// catalogue, two members (one platform-direct) and one expiry window.
type fixture struct {
	k     *kernel.Kernel
	s     *Services
	ev    *events
	queue windows.ExpiryQueue
	rules int
}

func newFixture() *fixture {
	f := &fixture{k: new(kernel.Kernel), ev: &events{}, rules: 2}
	cat := catalogue.New(nocache{})
	for _, a := range catalogue.Fixture() {
		cat.Add(a)
	}
	f.queue = windows.NewExpiryQueue(f.k, "test.window")
	f.s = &Services{
		Clock: clock{}, IDs: ids.New(f.k, "ids", 1, 2), Seq: kernel.NewCell(f.k, "seq", int64(0)),
		Books: ledger.New(f.k, cat.Scale), Short: func(account, asset string) error { return fmt.Errorf("short %s %s", account, asset) },
		Catalogue: cat, Timers: outcomes.New(outcomes.Clock{Now: clock{}.Now, Set: func(time.Time) {}}),
		Members: members{"mem_1": {ID: "mem_1", ExternalID: "ext-1"}, "mem_2": {ID: "mem_2", ExternalID: "ext-2", PlatformDirect: true}},
		Events:  f.ev, Merchant: merchant{refused: "USDC"},
		Creds: Credentials{MerchantID: "mch_1", WebhookSecret: "whsec"},
		Base:  func() string { return "http://sim" }, Rules: func() int { return f.rules },
		Window: func(w string) (windows.ExpiryQueue, int, bool) {
			return f.queue, 2, w == "test/window"
		},
	}
	f.s.Timers.Register(f.k)
	f.k.Provide(f.s)
	return f
}

func TestTheTxReachesTheServices(t *testing.T) {
	t.Parallel()
	f := newFixture()
	tx := f.k.BeginSetup()
	defer tx.End()
	usdt := func(s string) money.Amount { return money.MustParse(s, 6) }
	if err := tx.Transfer(start, "seed", "USDT", usdt("5"), kernel.AccountWorld, kernel.MemberAvailable("mem_1")); err != nil {
		t.Fatal(err)
	}
	amt, amtErr := tx.Amount("USDT", "-1.5")
	usdc, _ := tx.Asset("USDC")
	_, unknown := tx.Asset("XYZ")
	scale, _ := tx.AssetScale("USDT")
	got := map[string]any{
		"now": tx.Now(), "seq": []int64{tx.NextSeq(), tx.NextSeq()}, "merchant": tx.MerchantID(), "url": tx.URL(),
		"secret": tx.WebhookSecret(), "custody": tx.Custody(), "env": tx.Environment(),
		"balance": tx.Balance(kernel.MemberAvailable("mem_1"), "USDT").String(),
		"short":   fmt.Sprint(tx.Transfer(start, "x", "USDT", usdt("6"), kernel.MemberAvailable("mem_1"), kernel.AccountWorld)),
		"amount":  fmt.Sprint(amt, amtErr), "usdc": usdc, "unknown": unknown, "scale": scale, "assets": len(tx.Assets()),
		"allowed": []bool{tx.AssetAllowed("USDT"), tx.AssetAllowed("USDC"), tx.AssetAllowed("XYZ")},
		"uuid":    len(tx.NewUUID()) > 0,
	}
	want := map[string]any{
		"now": start, "seq": []int64{1, 2}, "merchant": "mch_1", "url": "http://sim",
		"secret": "whsec", "custody": kernel.MerchantHosted, "env": "production",
		"balance": "5.000000", "short": "short member:mem_1:available USDT",
		"amount": "-1.500000 <nil>", "usdc": kernel.Asset{Code: "USDC", LedgerScale: 6, DisplayScale: 2}, "unknown": false,
		"scale": 6, "assets": len(catalogue.Fixture()), "allowed": []bool{true, false, false}, "uuid": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
}

func TestPostAnswersShortWithItsError(t *testing.T) {
	t.Parallel()
	f := newFixture()
	tx := f.k.BeginSetup()
	defer tx.End()
	err := tx.Post(start, "short", kernel.Posting{Account: kernel.MemberAvailable("m"), Asset: "USDT", Amount: money.MustParse("-1", 6)},
		kernel.Posting{Account: kernel.AccountWorld, Asset: "USDT", Amount: money.MustParse("1", 6)})
	if err == nil || err.Error() != "short member:m:available USDT" {
		t.Errorf("Post = %v, want Short's error", err)
	}
	other := tx.Post(start, "unbalanced", kernel.Posting{Account: kernel.AccountWorld, Asset: "USDT", Amount: money.MustParse("1", 6)})
	var short *ledger.ShortError
	if other == nil || errors.As(other, &short) {
		t.Errorf("unbalanced Post = %v, want the ledger's own refusal", other)
	}
}

func TestEmitAndRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		member string
		want   []string
	}{
		{"no member", "", []string{"t o id_1 done 3 "}},
		{"a member", "mem_1", []string{"t o id_1 done 3 ext-1"}},
		{"an unknown member", "mem_9", []string{"t o id_1 done 3 "}},
		{"a platform-direct member records nothing", "mem_2", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			tx := f.k.BeginSetup()
			defer tx.End()
			tx.Emit(kernel.Event{Type: "t", Object: "o", ObjectID: "id_1", MemberID: tt.member, Status: "done", Version: 3})
			if diff := cmp.Diff(tt.want, f.ev.log); diff != "" {
				t.Errorf("emitted (-want +got):\n%s", diff)
			}
		})
	}
	f := newFixture()
	tx := f.k.BeginSetup()
	defer tx.End()
	if id := Record(tx, f.ev, kernel.Event{Type: "t", MemberID: "ignored"}, &api.Member{ExternalID: "ext-3"}); id != "evt_1" {
		t.Errorf("Record = %q, want evt_1", id)
	}
	if diff := cmp.Diff([]string{"t    0 ext-3"}, f.ev.log); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
}

func TestExpireAtPushesFromItsRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules int
		want  int
	}{{"rules before the window's", 1, 0}, {"the window's rules", 2, 1}, {"later rules", 3, 1}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.rules = tt.rules
			tx := f.k.BeginSetup()
			defer tx.End()
			tx.ExpireAt("test/window", "k1", start.Add(time.Minute))
			if n := f.queue.Len(tx); n != tt.want {
				t.Errorf("queue holds %d, want %d", n, tt.want)
			}
		})
	}
	t.Run("a window with no queue panics", func(t *testing.T) {
		f := newFixture()
		tx := f.k.BeginSetup()
		defer tx.End()
		defer func() {
			if recover() == nil {
				t.Error("no panic")
			}
		}()
		tx.ExpireAt("none", "k", start)
	})
}

func TestInFlightAndSettledReachTheTimers(t *testing.T) {
	t.Parallel()
	f := newFixture()
	tx := f.k.BeginSetup()
	defer tx.End()
	tx.InFlight("qrpay/orders", "qrp_1")
	tx.InFlight("qrpay/orders", "qrp_2")
	tx.Settled("qrp_1")
	if got := f.s.Timers.View(tx).Pending; len(got) != 1 {
		t.Errorf("pending = %v, want one object", got)
	}
}
