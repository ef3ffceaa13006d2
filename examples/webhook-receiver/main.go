// Command webhook-receiver is the webhook endpoint of a merchant backend:
// an http.Handler that verifies every delivery's signature over the raw
// body, drops duplicates (delivery is at least once), merges each object
// forward by status_version (deliveries arrive out of order), and re-reads
// the object from the REST API, since event bodies carry only identifiers
// and statuses.
//
// Against the embedded simulator (the default) it serves the receiver on a
// local port, registers it with the simulator, causes a few events
// (a redelivered member.created, a deposit, a remittance, a late
// out-of-order event) and flushes the deliveries:
//
//	go run ./examples/webhook-receiver
//
// Against a real environment it listens until interrupted; expose the
// address to the service and register it as a webhook endpoint in the
// merchant console. The webhook secret, like the API credentials used to
// re-read objects, comes from the environment:
//
//	export MWALLET_CLIENT_ID=... MWALLET_API_KEY=... MWALLET_SIGNING_KEY=... MWALLET_MEMBER=...
//	export MWALLET_WEBHOOK_SECRET=...
//	go run ./examples/webhook-receiver -base-url https://sandbox.example -listen 127.0.0.1:8081
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"sync"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/webhooks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

// Receiver processes verified, first-seen events. Mount it with Handler.
type Receiver struct {
	client  *mwclient.Client
	out     io.Writer
	mu      sync.Mutex // serialises the tracker and the output
	tracker *webhooks.Tracker
}

// NewReceiver returns a receiver that re-reads objects with client and
// reports what it did to out.
func NewReceiver(client *mwclient.Client, out io.Writer) *Receiver {
	return &Receiver{client: client, out: out, tracker: webhooks.NewTracker()}
}

// Handler returns the http.Handler to mount at the webhook URL. The
// webhooks.Handler verifies, decodes and deduplicates; it answers 2xx only
// when Handle returned nil, so the service retries everything else.
func (r *Receiver) Handler(secret mwallet.Secret, opts ...webhooks.Option) http.Handler {
	return webhooks.Handler(secret, r.Handle, opts...)
}

// Handle processes one event. Returning an error makes the service retry it.
func (r *Receiver) Handle(ctx context.Context, ev webhooks.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Deliveries arrive out of order: keep only what moves an object forward.
	if !r.tracker.Apply(ev) {
		fmt.Fprintf(r.out, "event:    %s %s v%d: older than what we have, dropped\n", ev.EventType, ev.Data.Status, ev.Data.StatusVersion)
		return nil
	}
	if !ev.EventType.Known() {
		// A new event type: keep it verbatim and alert; acknowledge it.
		fmt.Fprintf(r.out, "event:    unknown type %q kept as is\n", ev.EventType)
		return nil
	}
	// The body holds identifiers and statuses only: read the object, on
	// behalf of the member the event names.
	member := ev.Data.ExternalMemberID
	var now string
	switch ev.Data.Object {
	case webhooks.ObjectRemittance:
		o, err := r.client.Remittances.Get(ctx, member, ev.Data.ID) // bare uuid accepted
		if err != nil {
			return err
		}
		now = fmt.Sprintf("%s %s, settled %s %s", o.ID, o.Status, o.SettledAmount, o.SourceAsset)
	case webhooks.ObjectQRPayOrder:
		o, err := r.client.QRPay.Order(ctx, member, ev.Data.ID)
		if err != nil {
			return err
		}
		now = fmt.Sprintf("%s %s", o.ID, o.Status)
	case webhooks.ObjectCardApplication:
		a, err := r.client.Cards.GetApplication(ctx, member, ev.Data.ID)
		if err != nil {
			return err
		}
		now = fmt.Sprintf("%s %s", a.ID, a.Status)
	case webhooks.ObjectCard:
		c, err := r.client.Cards.Get(ctx, member, ev.Data.ID)
		if err != nil {
			return err
		}
		now = fmt.Sprintf("%s %s, balance %s %s", c.ID, c.Status, c.Balance, c.Currency)
	case webhooks.ObjectMember:
		id, _ := ev.Data.RESTID()
		m, err := r.client.Members.Get(ctx, id)
		if err != nil {
			return err
		}
		now = fmt.Sprintf("%s (%s) %s", m.ID, m.ExternalMemberID, m.Status)
	default:
		now = ev.Data.RetrievalNote()
	}
	fmt.Fprintf(r.out, "event:    %s v%d -> %s\n", ev.EventType, ev.Data.StatusVersion, now)
	return nil
}

func run(ctx context.Context, stdout io.Writer, args []string) error {
	var listen string
	flags, err := exenv.Parse("webhook-receiver", stdout, args, func(fs *flag.FlagSet) {
		fs.StringVar(&listen, "listen", "127.0.0.1:8081", "real environment: address to listen on")
	})
	if err != nil {
		return err
	}
	env, err := flags.Open()
	if err != nil {
		return err
	}
	defer env.Close()
	out := &syncWriter{w: stdout}
	recv := NewReceiver(env.Client, out)

	if !env.Simulated() {
		if env.WebhookSecret == "" {
			return errors.New("export " + exenv.EnvWebhookSecret + " (the webhook secret is never taken as a flag)")
		}
		return serve(ctx, out, listen, recv.Handler(env.WebhookSecret))
	}
	return demo(ctx, out, env, recv)
}

// serve listens until ctx ends, then shuts the server down gracefully.
func serve(ctx context.Context, out io.Writer, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "listening on http://%s/webhooks; register that address (as the service reaches it) in the merchant console\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "stopped")
	return nil
}

// demo plays the service's side with the embedded simulator.
func demo(ctx context.Context, out io.Writer, env *exenv.Env, recv *Receiver) error {
	sim, client, member := env.Sim, env.Client, env.Member
	// The simulator signs with its own clock; a production receiver uses the
	// wall clock (no WithClock).
	server := httptest.NewServer(recv.Handler(env.WebhookSecret, webhooks.WithClock(sim.Clock.Now)))
	defer server.Close()
	endpointID, _, err := sim.Webhooks.AddEndpoint(server.URL) // every event type
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "endpoint: %s registered with the simulator\n", endpointID)

	// The member was created before any endpoint existed: that delivery is
	// no_subscriber. Redeliver it now that someone listens (same event_id).
	for d, err := range client.Webhooks.List(ctx, mwallet.ListParams{}) {
		if err != nil {
			return fmt.Errorf("deliveries: %w", err)
		}
		if d.Status.Redeliverable() {
			res, err := client.Webhooks.Redeliver(ctx, d.ID)
			if err != nil {
				return fmt.Errorf("redeliver: %w", err)
			}
			fmt.Fprintf(out, "redeliver: %s %s (%s) queued: %v\n", d.ID, d.EventType, d.Status, res.Queued)
		}
	}

	// Business that emits events.
	amt, err := client.ParseAmount(ctx, "USDT", "40")
	if err != nil {
		return err
	}
	if _, err := client.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: amt, Reference: "webhook-demo-1"}); err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	var payee remittance.Payee
	for p, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
		if err != nil {
			return fmt.Errorf("payees: %w", err)
		}
		if p.Currency == "EUR" {
			payee = p
		}
	}
	rem, err := client.Remittances.Create(ctx, member, remittance.CreateParams{PayeeID: payee.ID, PayoutAmount: "50.00",
		PayoutCurrency: payee.Currency, SlippageBps: 50, PurposeCode: remittance.PurposeGoodsPurchased})
	if err != nil {
		return fmt.Errorf("remittance: %w", err)
	}
	if err := sim.Remittances.Dispatch(rem.ID); err != nil {
		return err
	}
	if err := sim.Remittances.Complete(rem.ID, ""); err != nil {
		return err
	}
	// A stale event for the same order, arriving after the newer one.
	bare := rem.ID[len("rmt_"):]
	if _, err := sim.Events.Emit("remittance.order.action_required", "remittance", bare, member, "needs_reconfirm", 1); err != nil {
		return err
	}

	res, err := sim.Webhooks.Flush(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "flush:    %d attempted, %d acknowledged, %d failed\n", res.Attempted, res.Succeeded, res.Failed)
	if res.Failed != 0 || res.Succeeded == 0 {
		return errors.New("the receiver did not acknowledge every delivery")
	}
	if err := sim.CheckLedger(); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		return fmt.Errorf("invariants: %w", err)
	}
	return nil
}

// syncWriter serialises writes from the receiver and the main flow.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
