// Command quickstart walks the main job of an integration against the
// embedded simulator, with no set-up: it obtains a token, reads the asset
// catalogue, declares a deposit, pays a QR code through strong
// authentication, applies for a card and tops it up, sends a remittance,
// receives and verifies the webhooks of all of it, and checks that the books
// balance. It prints one line per step and exits non-zero as soon as a step
// does not behave as documented, so it doubles as a smoke test.
//
//	go run ./examples/quickstart
//
// Every call goes through the real SDK over HTTP; only the decisions that
// belong to people and to upstream partners (the end user finishing the
// step-up screen, the QR acquirer, the card issuer, the receiving bank) are
// played by the simulator's Go API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/webhooks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

// run is the whole program; main_test.go runs it in-process.
func run(ctx context.Context, stdout io.Writer, args []string) error {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}

	sim, err := simulator.New() // sandbox, platform_hosted, member "member-1" with 1000 USDT and 500 USDC
	if err != nil {
		return err
	}
	defer sim.Close()
	client := sim.Client() // URL, credentials and clock of this simulator
	const member = simulator.DefaultMemberExternalID
	fmt.Fprintf(stdout, "mwallet quickstart: embedded simulator (%s, %s), acting for member %q\n",
		sim.Credentials().Environment, sim.Credentials().Model, member)
	step := stepper(stdout)

	// A webhook receiver: the Handler verifies each signature over the raw
	// body, decodes the event and drops duplicates; the function records it.
	recv := &received{}
	// sim.Webhooks.Handler is webhooks.Handler with the simulator's secret
	// and clock; in production: webhooks.Handler(secret, recv.handle).
	receiver := httptest.NewServer(sim.Webhooks.Handler(recv.handle))
	defer receiver.Close()
	if _, _, err := sim.Webhooks.AddEndpoint(receiver.URL); err != nil {
		return err
	}

	// 1-2. The first call exchanges the Key for an access token, which the
	// client caches and renews by itself.
	list, err := client.Assets(ctx)
	if err != nil {
		return fmt.Errorf("assets: %w", err)
	}
	if n := countPath(sim, "/v1/connect/token"); n != 1 {
		return fmt.Errorf("token: want 1 exchange on the first call, got %d", n)
	}
	step("token", "obtained by the first call (POST /v1/connect/token), cached for the next ones")
	var cat []string
	for _, a := range list.Assets {
		cat = append(cat, fmt.Sprintf("%s (ledger_scale %d)", a.Code, a.LedgerScale))
	}
	step("assets", strings.Join(cat, ", "))

	// 3. A deposit, parsed at the asset's ledger_scale and identified by a
	// stable business reference.
	amount, err := client.ParseAmount(ctx, "USDT", "100")
	if err != nil {
		return err
	}
	dep, err := client.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: amount, Reference: "quickstart-deposit-1"})
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	if dep.Status != deposits.StatusCredited || dep.Replayed {
		return fmt.Errorf("deposit: want a first credit, got status %s replayed %v", dep.Status, dep.Replayed)
	}
	avail, _, err := sim.Members.Balance(member, "USDT")
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	step("deposit", fmt.Sprintf("%s %s %s %s; available now %s %s", dep.ID, dep.Status, dep.Amount, dep.Asset, avail, dep.Asset))

	// 4-5. A QR payment: the first call always answers step_up_required.
	code := sampleqr.PromptPay // what a phone camera reads from a Thai PromptPay bill of 250.00 THB
	p := qrpay.PayParams{CodeValue: code}
	_, err = client.QRPay.Pay(ctx, member, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		return fmt.Errorf("qr payment: want step_up_required on the first call, got %v", err)
	}
	// The end user completes su.HostedURL; the simulator plays that part.
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		return err
	}
	order, err := client.QRPay.Pay(ctx, member, p, su.Options()...) // same key, x-step-up
	if err != nil {
		return fmt.Errorf("qr payment after step-up: %w", err)
	}
	if order.Status != qrpay.StatusProcessing {
		return fmt.Errorf("qr payment: want processing (201 is not paid), got %s", order.Status)
	}
	step("qr pay", fmt.Sprintf("step-up required, completed, resent with the same key: %s %s, %s %s held",
		order.ID, order.Status, order.CustomerTotal, order.Asset))
	if err := sim.QRPay.Complete(order.ID); err != nil { // the acquirer confirms
		return err
	}
	order, err = client.QRPay.Order(ctx, member, order.ID)
	if err != nil {
		return fmt.Errorf("qr order: %w", err)
	}
	if order.Status != qrpay.StatusCompleted {
		return fmt.Errorf("qr payment: want completed, got %s", order.Status)
	}
	step("qr outcome", fmt.Sprintf("%s %s after the upstream's answer", order.ID, order.Status))

	// 6-7. A virtual card: apply (the client key is the permanent business
	// key of the application), the issuer approves, then a top-up.
	app, err := client.Cards.Apply(ctx, member, cards.ApplyParams{
		ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std",
	})
	if err != nil {
		return fmt.Errorf("card application: %w", err)
	}
	submitted := app.Status
	if err := sim.Cards.ApproveApplication(app.ID); err != nil { // the issuer approves
		return err
	}
	if app, err = client.Cards.GetApplication(ctx, member, app.ID); err != nil {
		return fmt.Errorf("card application: %w", err)
	}
	if app.Status != cards.ApplicationIssued || app.CardID == "" {
		return fmt.Errorf("card application: want issued with a card, got %s", app.Status)
	}
	card, err := client.Cards.Get(ctx, member, app.CardID)
	if err != nil {
		return fmt.Errorf("card: %w", err)
	}
	step("card", fmt.Sprintf("%s %s, then %s: card %s %s", app.ID, submitted, app.Status, card.ID, card.Status))

	topAmount, err := client.ParseAmount(ctx, "USDT", "25")
	if err != nil {
		return err
	}
	top, err := client.Cards.TopUp(ctx, member, card.ID, cards.TopUpParams{Amount: topAmount})
	if err != nil {
		return fmt.Errorf("card top-up: %w", err)
	}
	if top.Status != cards.TopUpProcessing {
		return fmt.Errorf("card top-up: want processing (not yet a credit), got %s", top.Status)
	}
	if err := sim.Cards.CreditTopUp(top.ID); err != nil { // card.topup.credited
		return err
	}
	if card, err = client.Cards.Get(ctx, member, card.ID); err != nil {
		return fmt.Errorf("card: %w", err)
	}
	if !card.Balance.Equal(money.MustParse("25", card.Scale)) {
		return fmt.Errorf("card top-up: want a balance of 25 after the credit, got %s", card.Balance)
	}
	step("card top-up", fmt.Sprintf("%s %s, credited: balance %s %s", top.ID, top.Status, card.Balance, card.Currency))

	// 8. A remittance of 100.00 GBP to the member's saved GBP payee.
	var payee remittance.Payee
	for py, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
		if err != nil {
			return fmt.Errorf("payees: %w", err)
		}
		if py.Currency == "GBP" {
			payee = py
		}
	}
	if payee.ID == "" {
		return errors.New("payees: no GBP payee")
	}
	rem, err := client.Remittances.Create(ctx, member, remittance.CreateParams{
		PayeeID: payee.ID, PayoutAmount: "100.00", PayoutCurrency: payee.Currency,
		SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport,
	})
	if err != nil {
		return fmt.Errorf("remittance: %w", err)
	}
	created := rem.Status
	if err := sim.Remittances.Dispatch(rem.ID); err != nil { // the upstream takes it
		return err
	}
	if err := sim.Remittances.Complete(rem.ID, ""); err != nil { // the payee is paid
		return err
	}
	got, err := client.Remittances.Get(ctx, member, rem.ID)
	if err != nil {
		return fmt.Errorf("remittance: %w", err)
	}
	if !got.IsCompleted() {
		return fmt.Errorf("remittance: want completed, got %s", got.Status)
	}
	step("remittance", fmt.Sprintf("%s 100.00 GBP %s, then %s (version %d), %s %s settled of %s locked",
		got.ID, created, got.Status, got.StatusVersion, got.SettledAmount, got.SourceAsset, got.LockedAmount))

	// 9. Deliver the webhooks queued by all of the above.
	res, err := sim.Webhooks.Flush(ctx)
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	types := recv.types()
	want := []string{"deposit.credited", "qrpay.order.completed", "card.application.approved", "card.topup.credited", "remittance.order.completed"}
	for _, w := range want {
		if !slices.Contains(types, w) {
			return fmt.Errorf("webhooks: %s not received (received %v)", w, types)
		}
	}
	if res.Failed != 0 || res.Succeeded != len(types) {
		return fmt.Errorf("webhooks: %d delivered, %d failed, %d received", res.Succeeded, res.Failed, len(types))
	}
	step("webhooks", fmt.Sprintf("%d delivered and verified: %s", len(types), strings.Join(types, ", ")))

	// 10. Every movement above was a balanced journal entry.
	if err := sim.CheckLedger(); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		return fmt.Errorf("invariants: %w", err)
	}
	calls := len(sim.Requests.List())
	step("ledger", fmt.Sprintf("balanced over %d journal entries; %d API calls, %d token exchange",
		len(sim.LedgerEntries()), calls, countPath(sim, "/v1/connect/token")))
	return nil
}

// stepper returns a function printing numbered steps.
func stepper(w io.Writer) func(name, text string) {
	n := 0
	return func(name, text string) {
		n++
		fmt.Fprintf(w, "%2d. %-12s %s\n", n, name, text)
	}
}

// received records the event types a receiver processed, in order.
type received struct {
	mu    sync.Mutex
	order []string
}

func (r *received) handle(_ context.Context, ev webhooks.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order = append(r.order, string(ev.EventType))
	return nil
}

func (r *received) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.order)
}

// countPath counts the requests the simulator received on path.
func countPath(sim *simulator.Simulator, path string) int {
	n := 0
	for _, r := range sim.Requests.List() {
		if r.Path == path {
			n++
		}
	}
	return n
}
