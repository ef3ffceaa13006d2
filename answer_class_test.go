package mwallet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// answerFailure is what goes wrong once the service has answered a call
// with success: the column of TestAnswerUnreadableClass.
type answerFailure string

const (
	// The 2xx body of the call is not JSON (cut after its first bytes,
	// with a Content-Length that matches).
	failNotJSON answerFailure = "body not JSON"
	// Every decimal string of the 2xx body gets one more non-zero decimal
	// ("12.000000" -> "12.0000007"): beyond the scale the answer itself
	// gives, or the asset's.
	failDecimals answerFailure = "one decimal too many"
	// The asset catalogue (GET /v1/assets) gives every asset ledger_scale 0
	// (and no networks): the answer's amounts do not fit it.
	failCatalogueScale answerFailure = "catalogue scale disagrees"
	// The asset catalogue lists no asset.
	failCatalogueEmpty answerFailure = "asset not in catalogue"
	// The asset catalogue is refused (403 insufficient_scope).
	failCatalogueRefused answerFailure = "catalogue read refused"
	// The call's context ends while the asset catalogue loads.
	failCatalogueCtx answerFailure = "context ends in catalogue read"
)

var allAnswerFailures = []answerFailure{failNotJSON, failDecimals, failCatalogueScale, failCatalogueEmpty, failCatalogueRefused, failCatalogueCtx}

// answerFault is the simulator's transport with the failure of one row:
// it changes the 2xx answers of the row's route (method and template), or
// the asset catalogue, while on.
type answerFault struct {
	base     http.RoundTripper
	method   string
	template string
	failure  answerFailure

	mu        sync.Mutex
	on        bool
	changed   int           // answers of the route changed
	catalogue int           // catalogue reads seen while on
	reading   chan struct{} // closed when a catalogue read starts (failCatalogueCtx)
	release   chan struct{} // closed when the test ends
	once      sync.Once
}

// seen returns the answers of the route changed and the catalogue reads.
func (f *answerFault) seen() (changed, catalogue int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed, f.catalogue
}

func (f *answerFault) set(on bool) {
	f.mu.Lock()
	f.on = on
	f.mu.Unlock()
}

var decimalString = regexp.MustCompile(`"(-?[0-9]+\.[0-9]+)"`)

func (f *answerFault) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	on := f.on
	f.mu.Unlock()
	catalogue := req.Method == http.MethodGet && req.URL.Path == "/v1/assets"
	if on && catalogue && f.failure == failCatalogueCtx {
		f.mu.Lock()
		f.catalogue++
		f.mu.Unlock()
		f.once.Do(func() { close(f.reading) })
		select { // the catalogue read is the client's, detached from the call
		case <-f.release:
		case <-req.Context().Done():
		}
		return nil, errors.New("catalogue read held until the test ended")
	}
	resp, err := f.base.RoundTrip(req)
	if err != nil || !on || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	var change func([]byte) []byte
	switch {
	case catalogue && f.failure != failNotJSON && f.failure != failDecimals:
		f.mu.Lock()
		f.catalogue++
		f.mu.Unlock()
		change = func(b []byte) []byte { return catalogueAs(b, f.failure) }
		if f.failure == failCatalogueRefused {
			resp.StatusCode, resp.Status = http.StatusForbidden, "403 Forbidden"
		}
	case req.Method == f.method && templateOf(req.Method, req.URL.Path) == f.template:
		switch f.failure {
		case failNotJSON:
			change = func(b []byte) []byte { return b[:min(len(b), 9)] }
		case failDecimals:
			change = func(b []byte) []byte { return decimalString.ReplaceAll(b, []byte(`"${1}7"`)) }
		}
	}
	if change == nil {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	nb := change(body)
	if !bytes.Equal(nb, body) {
		f.mu.Lock()
		f.changed++
		f.mu.Unlock()
	}
	resp.Body = io.NopCloser(bytes.NewReader(nb))
	resp.ContentLength = int64(len(nb))
	resp.Header.Set("Content-Length", strconv.Itoa(len(nb)))
	return resp, nil
}

// catalogueAs is the catalogue answer b made to fail as failure says.
func catalogueAs(b []byte, failure answerFailure) []byte {
	switch failure {
	case failCatalogueEmpty:
		return []byte(`{"assets":[]}`)
	case failCatalogueRefused:
		return []byte(`{"type":"invalid_request_error","code":"insufficient_scope","message":"the Key lacks merchant:read"}`)
	}
	var c struct {
		Assets []map[string]any `json:"assets"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return b
	}
	for _, a := range c.Assets {
		a["ledger_scale"], a["networks"] = 0, []any{}
	}
	out, _ := json.Marshal(c)
	return out
}

// templateOf is the template of the route table that a path matches, the
// one with the most literal segments (as the client's routeOf).
func templateOf(method, path string) string {
	best, bestLiterals := "", -1
	ps := strings.Split(path, "/")
	for _, r := range mwallet.RouteTable() {
		if r[0] != method {
			continue
		}
		ts := strings.Split(r[1], "/")
		if len(ts) != len(ps) {
			continue
		}
		literals, ok := 0, true
		for i := range ts {
			switch {
			case strings.HasPrefix(ts[i], "{"):
				ok = ok && ps[i] != ""
			case ts[i] == ps[i]:
				literals++
			default:
				ok = false
			}
		}
		if ok && literals > bestLiterals {
			best, bestLiterals = r[1], literals
		}
	}
	return best
}

// readCall is one read endpoint of the SDK (a GET of the route table),
// made through its product method against the simulator.
type readCall struct {
	// setup makes what the read needs with cl (a card, an order) and
	// returns its ids.
	setup func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) map[string]string
	call  func(ctx context.Context, cl *mwclient.Client, ids map[string]string, opts ...mwallet.CallOption) error
}

// collect walks a list to its end and returns its error.
func collect[T any](seq func(yield func(T, error) bool)) error {
	_, err := mwallet.Collect[T](seq)
	return err
}

// reads holds every GET of the SDK's route table, by operation.
var reads = map[string]readCall{
	"mwallet.Assets": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		_, err := cl.Assets(ctx, o...)
		return err
	}},
	"members.Get": {
		setup: func(t *testing.T, sim *simulator.Simulator, _ *mwclient.Client) map[string]string {
			return map[string]string{"member": simtest.MemberID(t, sim, writeMember)}
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Members.Get(ctx, ids["member"], o...)
			return err
		}},
	"qrpay.Order": {setup: paidOrder,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Order(ctx, writeMember, ids["order"], o...)
			return err
		}},
	"qrpay.Schemes": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.QRPay.Schemes(ctx, o...))
	}},
	"deposits.List": {setup: deposited,
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			return collect(cl.Deposits.List(ctx, deposits.ListParams{}, o...))
		}},
	"deposits.Get": {setup: deposited,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Deposits.Get(ctx, ids["reference"], o...)
			return err
		}},
	"cards.Products": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.Cards.Products(ctx, o...))
	}},
	"cards.Quote": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		_, err := cl.Cards.Quote(ctx, writeMember, "cpd_virtual_std", cards.QuoteParams{}, o...)
		return err
	}},
	"cards.GetApplication": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.GetApplication(ctx, writeMember, ids["application"], o...)
			return err
		}},
	"cards.List": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			return collect(cl.Cards.List(ctx, writeMember, mwallet.ListParams{}, o...))
		}},
	"cards.Get": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Get(ctx, writeMember, ids["card"], o...)
			return err
		}},
	"cards.CheckClose": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.CheckClose(ctx, writeMember, ids["card"], o...)
			return err
		}},
	"cards.Transactions": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			return collect(cl.Cards.Transactions(ctx, writeMember, ids["card"], cards.TransactionListParams{}, o...))
		}},
	"cards.EstimateTopUp": {setup: readCard,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.EstimateTopUp(ctx, writeMember, ids["card"], cards.EstimateParams{Amount: money.MustParse("20", 6), SourceAsset: "USDT"}, o...)
			return err
		}},
	"remittance.List": {setup: remitted,
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			return collect(cl.Remittances.List(ctx, writeMember, mwallet.ListParams{}, o...))
		}},
	"remittance.Get": {setup: remitted,
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.Get(ctx, writeMember, ids["remittance"], o...)
			return err
		}},
	"remittance.Payees": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.Remittances.Payees(ctx, writeMember, mwallet.ListParams{}, o...))
	}},
	"remittance.Quote": {
		setup: func(t *testing.T, _ *simulator.Simulator, cl *mwclient.Client) map[string]string {
			return map[string]string{"payee": payeeIn(t, cl, "GB")}
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.Quote(ctx, writeMember, remittance.QuoteParams{PayeeID: ids["payee"], PayoutAmount: "100.00", PayoutCurrency: "GBP"}, o...)
			return err
		}},
	"remittance.Products": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.Remittances.Products(ctx, o...))
	}},
	"remittance.ConversionDates": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.Remittances.ConversionDates(ctx, "GBP", o...))
	}},
	"kyc.Get": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		_, err := cl.KYC.Get(ctx, writeMember, o...)
		return err
	}},
	"kyc.QuickBindings": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.KYC.QuickBindings(ctx, writeMember, mwallet.ListParams{}, o...))
	}},
	"webhooks.Deliveries": {call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
		return collect(cl.Webhooks.List(ctx, mwallet.ListParams{}, o...))
	}},
}

// paidOrder pays the sample QR code through step-up and returns the order.
func paidOrder(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
	_, err := cl.QRPay.Pay(ctx, writeMember, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("pay: %v, want step_up_required", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	o, err := cl.QRPay.Pay(ctx, writeMember, p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"order": o.ID}
}

// deposited credits a deposit and returns its reference.
func deposited(t *testing.T, _ *simulator.Simulator, cl *mwclient.Client) map[string]string {
	t.Helper()
	d, err := cl.Deposits.Create(context.Background(), writeMember, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("12.5", 6), Reference: "answer-1"})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"reference": d.Reference}
}

// readCard issues a virtual card, topped up once, and returns it and its
// application.
func readCard(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) map[string]string {
	t.Helper()
	_, ids := onCard("virtual", "")(t, sim, cl)
	if _, err := cl.Cards.TopUp(context.Background(), writeMember, ids["card"], cards.TopUpParams{Amount: money.MustParse("20", 6)}); err != nil {
		t.Fatal(err)
	}
	card, err := cl.Cards.Get(context.Background(), writeMember, ids["card"])
	if err != nil {
		t.Fatal(err)
	}
	ids["application"] = card.ApplicationID
	return ids
}

// remitted orders a remittance and returns it.
func remitted(t *testing.T, _ *simulator.Simulator, cl *mwclient.Client) map[string]string {
	t.Helper()
	out, err := cl.Remittances.Create(context.Background(), writeMember, remittance.CreateParams{PayeeID: payeeIn(t, cl, "GB"), PayoutAmount: "100.00",
		PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"remittance": out.ID}
}

// TestEveryReadOfTheRouteTable: reads holds exactly the reads of the SDK's
// route table, and each one succeeds against the simulator.
func TestEveryReadOfTheRouteTable(t *testing.T) {
	t.Parallel()
	var want, listed []string
	for _, r := range mwallet.RouteTable() {
		if r[0] == http.MethodGet {
			want = append(want, r[2])
		}
	}
	for op := range reads {
		listed = append(listed, op)
	}
	sort.Strings(want)
	sort.Strings(listed)
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Fatalf("reads and the route table's reads differ (-routes +reads):\n%s", diff)
	}
	for _, op := range listed {
		r := reads[op]
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			cl := sim.Client()
			var ids map[string]string
			if r.setup != nil {
				ids = r.setup(t, sim, cl)
			}
			if err := r.call(context.Background(), cl, ids); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// answerRow is one row of TestAnswerUnreadableClass: a route of the table
// made by its method (or, resumed, by mwclient.Client.ResumeTyped of its
// pending record).
type answerRow struct {
	op       string // the route's operation
	method   string
	template string
	write    *writeCall // nil for a read and the token exchange
	read     *readCall
	resumed  bool
}

func (r answerRow) name() string {
	if r.resumed {
		return r.op + " (resumed)"
	}
	return r.op
}

// answerResult is what a cell of TestAnswerUnreadableClass finds.
type answerResult struct {
	// Kind: "answer unreadable" (*AnswerError), "ok" (the call succeeded),
	// "not sent" (*TransportError, NotSent), "unknown" (ErrOutcomeUnknown),
	// "param" (*ParamError), "answered" (*Error), or the error's type.
	Kind string
	// Key: the error carries the call's idempotency key (keyed writes), or
	// none (the others).
	Key bool
	// Executed: the error says the write executed (AnswerError.Executed
	// and "executed" in its text).
	Executed bool
	// Invalid: errors.Is(err, ErrInvalidParam) or "nothing was sent".
	Invalid bool
	// Cause: the failure's cause is in the chain (a JSON error, or
	// money.ErrPrecision).
	Cause bool
	// RequestID: the error carries the answer's request id.
	RequestID bool
	// Body: "kept" (AnswerError.Body is the answer as received), "none"
	// (a secret endpoint), "-" (no *AnswerError).
	Body string
	// Resend: the same write resent with the error's key once the answers
	// read again: "replayed", "ran again" (a write the service keeps no
	// key for, or one that never ran), or "-".
	Resend string
}

// answerRows lists the rows: every route of the table; every keyed write
// that the pending store records again as resumed.
func answerRows(t *testing.T) []answerRow {
	var rows []answerRow
	for _, r := range mwallet.RouteTable() {
		row := answerRow{op: r[2], method: r[0], template: r[1]}
		switch {
		case r[2] == "connect.Token":
		case r[0] == http.MethodGet:
			rd, ok := reads[r[2]]
			if !ok {
				t.Fatalf("%s is a read of the route table missing from reads", r[2])
			}
			row.read = &rd
		default:
			w, ok := writes[r[2]]
			if !ok {
				t.Fatalf("%s is a write of the route table missing from writes", r[2])
			}
			row.write = &w
			if w.keyed && !recordsNothing[r[2]] {
				rows = append(rows, row, answerRow{op: row.op, method: row.method, template: row.template, write: &w, resumed: true})
				continue
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// recordsNothing: the keyed writes that carry a PIN or CVV, which the
// pending store never records.
var recordsNothing = map[string]bool{"cards.Activate": true, "cards.SetPIN": true}

// secretAnswers: the routes whose request or answer carries a secret.
var secretAnswers = map[string]bool{"connect.Token": true, "cards.Activate": true, "cards.SetPIN": true,
	"cards.SecureSession": true, "kyc.ProfileSession": true}

// TestAnswerUnreadableClass: for every route of the SDK's route table
// (every write, keyed or not, every read, the token exchange; and every
// keyed write again through its typed resume), a success answer whose
// reading fails in each way of allAnswerFailures. Whenever the call fails
// after the service answered it with success, the error is an
// *mwallet.AnswerError (ErrAnswerUnreadable) that says a write executed,
// carries the write's key and the request id, keeps the cause, and neither
// matches ErrInvalidParam nor ErrOutcomeUnknown nor says nothing was sent;
// a resend of a keyed write with that key replays it, and the books
// balance. The token exchange precedes the write: its unreadable answer
// makes the write not sent.
func TestAnswerUnreadableClass(t *testing.T) {
	t.Parallel()
	rows := answerRows(t)
	var mu sync.Mutex
	got := map[string]map[answerFailure]answerResult{}
	t.Cleanup(func() {
		var b strings.Builder
		fmt.Fprintf(&b, "%d rows x %d failures = %d cells\n", len(rows), len(allAnswerFailures), len(rows)*len(allAnswerFailures))
		type line struct {
			f   answerFailure
			res answerResult
		}
		count := map[line][]string{}
		for name, byF := range got {
			for f, res := range byF {
				count[line{f, res}] = append(count[line{f, res}], name)
			}
		}
		var lines []line
		for l := range count {
			lines = append(lines, l)
		}
		sort.Slice(lines, func(i, j int) bool {
			if lines[i].f != lines[j].f {
				return indexOf(allAnswerFailures, lines[i].f) < indexOf(allAnswerFailures, lines[j].f)
			}
			return len(count[lines[i]]) > len(count[lines[j]])
		})
		fmt.Fprintf(&b, "| failure | error | key | executed | invalid param | cause | request id | body | resend with the key | routes |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, l := range lines {
			names := count[l]
			sort.Strings(names)
			who := fmt.Sprintf("%d: %s", len(names), strings.Join(names, ", "))
			fmt.Fprintf(&b, "| %s | %s | %v | %v | %v | %v | %v | %s | %s | %s |\n", l.f, l.res.Kind, l.res.Key, l.res.Executed, l.res.Invalid,
				l.res.Cause, l.res.RequestID, l.res.Body, l.res.Resend, who)
		}
		t.Log("\n" + b.String())
	})
	for _, row := range rows {
		for _, f := range allAnswerFailures {
			t.Run(row.name()+"/"+string(f), func(t *testing.T) {
				t.Parallel()
				res := runAnswerCell(t, row, f)
				mu.Lock()
				if got[row.name()] == nil {
					got[row.name()] = map[answerFailure]answerResult{}
				}
				got[row.name()][f] = res
				mu.Unlock()
				if diff := cmp.Diff(wantAnswer(row, f, res), res); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

func indexOf[T comparable](s []T, v T) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// catalogueReaders: the routes whose reading consults the asset catalogue
// (qrpay.Order.ReadAnswer: the payment order carries no ledger_scale).
var catalogueReaders = map[string]bool{"qrpay.Pay": true, "qrpay.Order": true}

// wantAnswer is the result a cell must have. Which routes fail is the
// table's to say for failDecimals (every route whose answer has an amount
// read at a scale fails, the others read it as printed or have none): for
// them got's own kind is taken, the rest of the row checked.
func wantAnswer(row answerRow, f answerFailure, got answerResult) answerResult {
	keyed := row.write != nil && row.write.keyed
	ok := answerResult{Kind: "ok", Body: "-", Resend: "-"}
	fails := false
	switch f {
	case failNotJSON:
		fails = true
	case failDecimals:
		fails = got.Kind != "ok"
	case failCatalogueScale:
		fails = catalogueReaders[row.op]
	}
	if row.op == "connect.Token" {
		// The exchange's own answer: the write it precedes was not sent.
		if f == failNotJSON {
			return answerResult{Kind: "not sent", Key: true, Body: "-", Resend: "ran again"}
		}
		return ok
	}
	if row.op == "mwallet.Assets" {
		// The catalogue is this read's own answer.
		switch f {
		case failCatalogueRefused:
			return answerResult{Kind: "answered insufficient_scope", Body: "-", Resend: "-"}
		case failCatalogueCtx:
			return answerResult{Kind: "unknown", Body: "-", Resend: "-"} // a read without an answer
		}
	}
	if !fails {
		return ok
	}
	want := answerResult{Kind: "answer unreadable", Key: keyed, Executed: row.write != nil, Cause: true, RequestID: true, Body: "kept", Resend: "-"}
	if secretAnswers[row.op] {
		want.Body = "none"
	}
	if keyed {
		want.Resend = "replayed"
		if row.write.noRecord {
			want.Resend = "ran again"
		}
	}
	return want
}

// runAnswerCell runs one cell.
func runAnswerCell(t *testing.T, row answerRow, f answerFailure) answerResult {
	sim := simtest.Start(t)
	setup := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	fault := &answerFault{method: row.method, template: row.template, failure: f,
		reading: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(fault.release) })
	fault.base = sim.HTTPClient().Transport
	if fault.base == nil {
		fault.base = http.DefaultTransport
	}
	hc := *sim.HTTPClient()
	hc.Transport = fault
	client := func(opts ...mwallet.Option) *mwclient.Client {
		return sim.Client(append([]mwallet.Option{mwallet.WithHTTPClient(&hc), mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	}

	var ids map[string]string
	path := ""
	key := ""
	var call func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error
	var stepUp string
	switch {
	case row.read != nil:
		if row.read.setup != nil {
			ids = row.read.setup(t, sim, setup)
		}
		call = func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error {
			return row.read.call(ctx, cl, ids, opts...)
		}
	case row.write != nil:
		path, ids = row.write.setup(t, sim, setup)
		call = func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error {
			return row.write.call(ctx, cl, ids, opts...)
		}
		if row.write.keyed {
			key = mwallet.NewIdempotencyKey()
		}
		if row.write.stepUp {
			err := call(context.Background(), setup, mwallet.WithIdempotencyKey(key))
			su, ok := mwallet.AsStepUp(err)
			if !ok {
				t.Fatalf("call without a challenge: %v, want step_up_required", err)
			}
			if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
				t.Fatal(err)
			}
			stepUp = su.ChallengeID
		}
	default: // the token exchange, before a deposit
		w := writes["deposits.Create"]
		_, ids = w.setup(t, sim, setup)
		key = mwallet.NewIdempotencyKey()
		call = func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error {
			return w.call(ctx, cl, ids, opts...)
		}
	}
	var opts []mwallet.CallOption
	if key != "" {
		opts = append(opts, mwallet.WithIdempotencyKey(key))
	}
	if stepUp != "" {
		opts = append(opts, mwallet.WithStepUp(stepUp))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if f == failCatalogueCtx {
		go func() {
			select {
			case <-fault.reading:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var err error
	if row.resumed {
		// The write runs and its answer is lost: the pending store keeps
		// it; a new process resumes it, and the service replays it.
		store := mwallet.NewMemoryPendingStore()
		if err := sim.Faults.Inject(simulator.Fault{Method: row.method, Path: path, Kind: simulator.FaultDropAfter, Count: 1}); err != nil {
			t.Fatal(err)
		}
		lost := call(context.Background(), sim.Client(mwallet.WithPendingStore(store)), append(opts, mwallet.WithMaxAttempts(1))...)
		if !errors.Is(lost, mwallet.ErrOutcomeUnknown) {
			t.Fatalf("the write whose answer is lost: %v, want an unknown outcome", lost)
		}
		pending, perr := store.List(context.Background())
		if perr != nil || len(pending) != 1 {
			t.Fatalf("pending store = %v, %v", pending, perr)
		}
		fault.set(true)
		_, err = client().ResumeTyped(ctx, pending[0])
	} else {
		fault.set(true)
		err = call(ctx, client(), opts...)
	}
	fault.set(false)

	res := classifyAnswer(err, key, row, f)
	if res.Kind == "answer unreadable" {
		var ae *mwallet.AnswerError
		errors.As(err, &ae)
		if res.Body == "kept" && len(ae.Body) == 0 {
			res.Body = "empty"
		}
		if row.resumed && !ae.Replayed && !row.write.noRecord {
			t.Errorf("a resumed write that had run: Replayed false: %v", err)
		}
		if ae.Path == "" || templateOf(ae.Method, ae.Path) != row.template {
			t.Errorf("AnswerError names %s %s, want a path of %s", ae.Method, ae.Path, row.template)
		}
	}
	if err != nil && key != "" {
		// Following the error: resend with its key once the answers read
		// again, from a fresh client (its catalogue not cached).
		res.Resend = resendWithKey(t, sim, call, mwallet.IdempotencyKeyOf(err), row.write != nil && row.write.stepUp)
	}
	changed, catalogue := fault.seen()
	if (f == failNotJSON || f == failDecimals) && row.op != "mwallet.Assets" && changed == 0 && res.Kind != "ok" {
		t.Errorf("the answer of %s %s was not changed, yet the call failed: %v", row.method, row.template, err)
	}
	if catalogueReaders[row.op] && f != failNotJSON && f != failDecimals && catalogue == 0 {
		t.Errorf("%s read its answer without the asset catalogue", row.name())
	}
	return res
}

// classifyAnswer reads a cell's error.
func classifyAnswer(err error, key string, row answerRow, f answerFailure) answerResult {
	res := answerResult{Kind: "ok", Body: "-", Resend: "-"}
	if err == nil {
		return res
	}
	var ae *mwallet.AnswerError
	var te *mwallet.TransportError
	var pe *mwallet.ParamError
	var apiErr *mwallet.Error
	switch {
	case errors.As(err, &ae):
		res.Kind = "answer unreadable"
		res.Executed = ae.Executed && strings.Contains(err.Error(), "executed")
		res.RequestID = ae.RequestID != "" && strings.Contains(err.Error(), ae.RequestID)
		res.Body = "none"
		if len(ae.Body) > 0 {
			res.Body = "kept"
		}
		if !errors.Is(err, mwallet.ErrAnswerUnreadable) || errors.Is(err, mwallet.ErrOutcomeUnknown) {
			res.Kind = "answer unreadable, mismatched"
		}
	case errors.As(err, &te) && te.NotSent:
		res.Kind = "not sent"
	case errors.Is(err, mwallet.ErrOutcomeUnknown):
		res.Kind = "unknown"
	case errors.As(err, &pe):
		res.Kind = "param"
	case errors.As(err, &apiErr):
		res.Kind = "answered " + string(apiErr.Code)
	default:
		res.Kind = fmt.Sprintf("%T", err)
	}
	res.Key = key != "" && mwallet.IdempotencyKeyOf(err) == key
	res.Invalid = errors.Is(err, mwallet.ErrInvalidParam) || strings.Contains(err.Error(), "nothing was sent")
	var syntax *json.SyntaxError
	switch f {
	case failNotJSON:
		res.Cause = errors.As(err, &syntax)
	default:
		res.Cause = errors.Is(err, money.ErrPrecision)
	}
	if res.Kind != "answer unreadable" {
		res.Cause, res.RequestID = false, false
	}
	return res
}

// resendWithKey sends the write again with key from a fresh client (a
// new challenge for a write that needs step-up) and says whether the
// answer was a replay.
func resendWithKey(t *testing.T, sim *simulator.Simulator, call func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error, key string, stepUp bool) string {
	t.Helper()
	if key == "" {
		return "no key"
	}
	cl := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	var resp *mwallet.Response
	err := call(context.Background(), cl, mwallet.WithIdempotencyKey(key), mwallet.WithResponse(&resp))
	if su, ok := mwallet.AsStepUp(err); ok && stepUp {
		if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
			t.Fatal(err)
		}
		err = call(context.Background(), cl, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(su.ChallengeID), mwallet.WithResponse(&resp))
	}
	switch {
	case err != nil:
		return "failed: " + string(mwallet.CodeOf(err))
	case resp.Replayed:
		return "replayed"
	}
	return "ran again"
}
