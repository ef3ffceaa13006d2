package mwallet_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// A client for the embedded simulator lists the asset catalogue. Against the
// real service, use mwclient.New (or NewClient) with its base URL and your
// credentials.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	list, err := client.Assets(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range list.Assets {
		fmt.Printf("%s ledger_scale=%d display_scale=%d\n", a.Code, a.LedgerScale, a.DisplayScale)
	}
	// Output:
	// USDT ledger_scale=6 display_scale=2
	// USDC ledger_scale=6 display_scale=2
	// BTC ledger_scale=8 display_scale=6
	// ETH ledger_scale=18 display_scale=6
}

// New takes the base URL of the environment and the Key's three
// values; secrets print as [redacted]. It returns the shared transport; a
// product line's client is built on it (qrpay.New(client)), or
// mwclient.New builds them all.
func ExampleNew() {
	creds := mwallet.Credentials{
		ClientID:   "client-1",
		APIKey:     mwallet.Secret("api-key-value"),
		SigningKey: mwallet.Secret("signing-key-value"),
	}
	client, err := mwallet.New("https://api.example.com", creds,
		mwallet.WithUserAgent("shop-backend/2.1"),
		mwallet.WithDefaultMaxAttempts(4),
		mwallet.WithDefaultAttemptTimeout(10*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL())
	fmt.Printf("%+v\n", creds)
	// Output:
	// https://api.example.com
	// mwallet.Credentials{ClientID:client-1 APIKey:[redacted] SigningKey:[redacted]}
}

// Amounts are parsed at the asset's ledger_scale from the cached catalogue,
// never rounded, and truncated to display_scale only for showing.
func ExampleClient_ParseAmount() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	amount, err := client.ParseAmount(ctx, "USDT", "12.349")
	if err != nil {
		log.Fatal(err)
	}
	shown, _ := client.DisplayAmount(ctx, "USDT", amount)
	fmt.Println(amount, shown)

	_, err = client.ParseAmount(ctx, "USDT", "0.0000001")
	fmt.Println(errors.Is(err, money.ErrPrecision), mwallet.CodeOf(err))
	// Output:
	// 12.349000 12.34
	// true invalid_request
}

// A write whose answer is lost (the connection drops after the service
// executed it) is resent with the same idempotency key, a new nonce and a
// new signature; the service replays the first result, so the deposit is
// credited once.
func ExampleClient_Do_retry() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		log.Fatal(err)
	}

	dep, err := client.Deposits.Create(context.Background(), simulator.DefaultMemberExternalID,
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "bank-transfer-42"})
	if err != nil {
		log.Fatal(err)
	}
	var keys []string
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/deposits" {
			keys = append(keys, r.IdempotencyKey)
		}
	}
	available, _, err := sim.Members.Balance(simulator.DefaultMemberExternalID, "USDT")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("attempts:", dep.Response.Attempts, "replayed:", dep.Response.Replayed)
	fmt.Println("one key for both attempts:", len(keys) == 2 && keys[0] == keys[1] && keys[0] == dep.Response.IdempotencyKey)
	fmt.Println("balance:", available, "ledger balanced:", sim.CheckLedger() == nil && sim.CheckInvariants() == nil)
	// Output:
	// attempts: 2 replayed: true
	// one key for both attempts: true
	// balance: 1025.000000 ledger balanced: true
}

// Input the SDK can reject is rejected before anything is sent, with a
// *ParamError carrying the code the service would have answered.
func ExampleParamError() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	_, err := client.Deposits.Create(context.Background(), "   ",
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: "r-1"})
	var pe *mwallet.ParamError
	if errors.As(err, &pe) {
		fmt.Println(pe.Param, pe.Code)
	}
	fmt.Println("requests sent:", len(sim.Requests.List()))
	// Output:
	// member member_context_required
	// requests sent: 0
}

// Branch on the error code, never on the message or the HTTP status.
func ExampleError() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	_, err := client.Deposits.Create(context.Background(), "no-such-member",
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: "r-2"})
	var apiErr *mwallet.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.HTTPStatus, apiErr.Retry(), apiErr.RequestID != "")
	}
	// Output:
	// member_not_found 404 never true
}

// A write the service answered with success, whose answer could not be
// read, ran: its error is an *AnswerError that says so and carries its key.
// Never send it again with a new key. Here a broken gateway cuts the
// answer of a deposit; the same key then replays the deposit the service
// made, credited once.
func ExampleAnswerError() {
	sim := simulator.MustNew()
	defer sim.Close()
	hc := *sim.HTTPClient()
	hc.Transport = cutDepositAnswers{hc.Transport} // the broken gateway
	client := sim.Client(mwallet.WithHTTPClient(&hc))
	ctx := context.Background()
	p := deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("10", 6), Reference: "payout-9"}

	_, err := client.Deposits.Create(ctx, "member-1", p)
	var ae *mwallet.AnswerError
	if errors.As(err, &ae) {
		fmt.Println("executed:", ae.Executed, "- outcome unknown:", errors.Is(err, mwallet.ErrOutcomeUnknown),
			"- input refused:", errors.Is(err, mwallet.ErrInvalidParam))
	}

	// Once the gateway is fixed: the same key replays the stored answer.
	dep, err := sim.Client().Deposits.Create(ctx, "member-1", p, mwallet.WithIdempotencyKey(mwallet.IdempotencyKeyOf(err)))
	if err != nil {
		log.Fatal(err)
	}
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed:", dep.Response.Replayed, "- credited once:", available)
	// Output:
	// executed: true - outcome unknown: false - input refused: false
	// replayed: true - credited once: 1010.000000
}

// cutDepositAnswers is a gateway that cuts the success answers of
// POST /v1/deposits after a few bytes.
type cutDepositAnswers struct{ base http.RoundTripper }

func (g cutDepositAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && req.URL.Path == "/v1/deposits" && resp.StatusCode/100 == 2 {
		_ = resp.Body.Close()
		resp.Body, resp.ContentLength = io.NopCloser(strings.NewReader(`{"id":`)), 6
		resp.Header.Del("Content-Length")
	}
	return resp, err
}

// After step_up_required, send the end user to HostedURL; once they are done,
// StepUp.Options gives the options that resend the same call: the same
// idempotency key and x-step-up.
func ExampleAsStepUp() {
	err := error(&mwallet.Error{
		Code: mwallet.CodeStepUpRequired, HTTPStatus: 400,
		ChallengeID: "chl_123", HostedURL: "https://verify.example/chl_123",
		IdempotencyKey: "0b5c8e0a-3f2d-4c1e-9a7b-5d6e7f8a9b0c",
	})
	if su, ok := mwallet.AsStepUp(err); ok {
		fmt.Println("send the user to", su.HostedURL)
		opts := su.Options() // pass opts... to the same method with the same parameters
		fmt.Println(len(opts), "options; key kept:", su.IdempotencyKey)
	}
	// Output:
	// send the user to https://verify.example/chl_123
	// 2 options; key kept: 0b5c8e0a-3f2d-4c1e-9a7b-5d6e7f8a9b0c
}

// A listing stops after a page and resumes later from the page's
// NextCursor: the resumed walk starts right after that page.
func ExamplePages() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		sim.Clock.Advance(time.Second)
		_, _ = client.Deposits.Create(ctx, "member-1", deposits.CreateParams{
			Asset: "USDC", Amount: money.MustParse("1", 6), Reference: fmt.Sprint("ref-", i)})
	}
	req := mwallet.Request{Method: http.MethodGet, Path: "/v1/deposits"}
	type deposit struct {
		Reference string `json:"reference"`
	}
	var saved string
	for page, err := range mwallet.Pages[deposit](ctx, client.Client, req, mwallet.ListParams{Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page.Data, page.HasMore)
		saved = page.NextCursor
		break // stop; keep saved with your progress
	}
	for page, err := range mwallet.Pages[deposit](ctx, client.Client, req, mwallet.ListParams{Limit: 2, Cursor: saved}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page.Data, page.HasMore, page.NextCursor == "")
	}
	// Output:
	// [{ref-3} {ref-2}] true
	// [{ref-1}] false true
}
