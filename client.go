// Package mwallet is the Go SDK of the Merchant Wallet, Card, Remittance and
// QR-Payment service. Build one client per set of credentials with
// mwclient.New and call the product lines through its fields:
//
//	client, err := mwclient.New("https://api.example.com", mwallet.Credentials{
//		ClientID:   os.Getenv("MWALLET_CLIENT_ID"),
//		APIKey:     mwallet.Secret(os.Getenv("MWALLET_API_KEY")),
//		SigningKey: mwallet.Secret(os.Getenv("MWALLET_SIGNING_KEY")),
//	}, mwallet.WithLogger(logger))
//	if err != nil {
//		return err
//	}
//	dep, err := client.Deposits.Create(ctx, "member-1", deposits.CreateParams{
//		Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "bank-transfer-42"})
//	var apiErr *mwallet.Error
//	switch {
//	case errors.Is(err, mwallet.ErrOutcomeUnknown): // it may have run: resend with the same key, mwallet.IdempotencyKeyOf(err)
//		return err
//	case errors.As(err, &apiErr): // the service answered and nothing ran: branch on apiErr.Code
//		return fmt.Errorf("deposit refused: %s (request %s)", apiErr.Code, apiErr.RequestID)
//	case err != nil: // nothing ran (no token, no connection, bad input): safe to send again
//		return err
//	}
//	fmt.Println(dep.ID, dep.Status)
//
// In tests, sim, client := simtest.New(t) (package simulator/simtest) gives
// a simulator of the whole service and a client wired to it. Webhooks are
// received with webhooks.Handler.
//
// # Client
//
// This package holds the transport every product line shares and the
// vocabulary of a call: Client (tokens, signing, idempotency keys, retries,
// error decoding), Request and Response, the With* call options, Error and
// its 53 Code constants, ParamError, ListParams, Page and the iterators. The
// product lines are packages of their own (qrpay, cards, remittance,
// deposits, kyc, members, webhooks) whose clients take a *Client; the
// mwclient.Client that mwclient.New returns wires them all into one value:
//
//	client.QRPay        // pay fiat QR codes in digital assets   (package qrpay)
//	client.Cards        // card products, applications, cards    (package cards)
//	client.Remittances  // remittances to saved payees           (package remittance)
//	client.Deposits     // deposits into member balances         (package deposits)
//	client.KYC          // hosted KYC screens and KYC state      (package kyc)
//	client.Members      // members                               (package members)
//	client.Webhooks     // webhook deliveries                    (package webhooks)
//	client.Assets(ctx)  // and every method of Client, promoted
//
// One Client, safe for concurrent use, serves every product line; create one
// per set of credentials and share it. New builds the root Client alone, for
// a program that uses one product line (qrpay.New(c) and the like);
// NewClient is deprecated.
//
// The base URL chooses the environment (sandbox and production have
// different addresses). It must be https; plain http is accepted for
// loopback addresses (a local simulator) and logged as a warning elsewhere.
// Package simulator serves the whole contract offline; its Client method
// returns an mwclient.Client wired to it.
//
// # What the client does on every call
//
//   - Access tokens: POST /v1/connect/token with x-client-id and x-api-key,
//     cached and replaced ahead of expired_at (60 s or a tenth of the
//     lifetime, whichever is smaller). Concurrent callers share one exchange;
//     exchanges are limited to 20 per minute on the client side. An
//     invalid_token answer drops the token, exchanges once more and resends
//     the call once.
//   - Signing: every write (any method but GET and HEAD) carries x-timestamp
//     (Unix seconds from the client's clock, corrected for the skew measured
//     from the service's Date header: WithSkewCorrection), x-nonce (new for
//     every attempt)
//     and x-signature, the base64 HMAC-SHA-256 with the signing key over
//     METHOD, path and query exactly as sent, timestamp, nonce and the hex
//     SHA-256 of the exact body bytes sent. The body is encoded once per call.
//   - Idempotency: creating writes carry x-idempotency-key, generated once per
//     call (UUID v4) or given with WithIdempotencyKey, and sent unchanged on
//     every retry. Response.IdempotencyKey and Error.IdempotencyKey report it;
//     Response.Replayed and Error.Replayed report X-Idempotent-Replay.
//   - Member context: member-scoped endpoints send x-on-behalf-of; a blank
//     member is rejected with a *ParamError (member_context_required) and
//     nothing is sent. No default member is ever assumed.
//   - Retries: api_error and unknown codes once (not when the answer is
//     already a replay of a stored failure), timestamp_out_of_range once at
//     once when its answer corrected the clock's skew, upstream_error and
//     upstream_timeout while attempts last, idempotency_in_progress after 1-2
//     s, rate_limited after Retry-After, network errors for reads and keyed
//     writes, and for any call when the request surely was not processed
//     (connection refused; over HTTP/2 a refused stream or a GOAWAY below
//     its stream); never the do-not-retry codes, a 404 or step_up_required.
//     The rules are the same over HTTP/1.1, HTTPS and HTTP/2, and every
//     resend of a write is the client's own, with a new nonce: net/http is
//     never given a body it could rewind to resend a write by itself.
//     Backoff is exponential with jitter, bounded by WithDefaultMaxAttempts,
//     WithRetryBackoff, a retry budget shared by the client
//     (WithRetryBudget) and the context: a wait ends the moment the context
//     ends. Each attempt has its own timeout (WithDefaultAttemptTimeout).
//   - Errors: a service answer that is not 2xx is an *Error (code, HTTP
//     status, message, request id and the code's extra fields); a body that
//     is not an error envelope (a proxy's HTML page, an empty body) still
//     gives a sane *Error. Input the SDK rejects before sending is a
//     *ParamError. A call that got no answer, or a keyed write whose outcome
//     is unknown, is a *TransportError that wraps the cause
//     (errors.Is(err, context.DeadlineExceeded) works).
//   - Logging: with WithLogger, every attempt is logged at debug level
//     (method, path, status, code, attempt, request id, idempotency key).
//     Tokens, keys, signatures and bodies are never logged; Secret and
//     Credentials print as [redacted].
//   - Telemetry: with WithObserver, an Observer sees every call, each of its
//     attempts (operation, route template, status, code, request id,
//     idempotency key, replay, retry reason, durations) and every token
//     exchange, never a secret; the module github.com/mwallet/mwallet-go/otel
//     turns them into OpenTelemetry spans and metrics. Without one, nothing
//     more is done or allocated.
//
// # Retrying a call yourself
//
// Once an attempt of a keyed write may have reached the service without a
// final answer (a timeout, a network error, a 5xx such as upstream_timeout),
// only a 2xx or a replayed answer settles it: whatever ends the call after
// that (a refused or hanging token renewal, a disabled Key, rate_limited,
// step_up_required, the context, the attempts running out), the error is a
// *TransportError for which errors.Is(err, ErrOutcomeUnknown) holds, the
// later cause wrapped in it. Resend the same parameters with the same key,
// which every error of a keyed write carries (IdempotencyKeyOf). When
// nothing of the call can have run the error says so (TransportError.NotSent,
// or the service's *Error). After a definite business failure the same key
// replays that failure; correct the cause and send with a new key (the
// default when no key is given). Error.Retry says which: a replayed failure
// (Error.Replayed) is always new-key, also a 500 api_error, and an answer
// inside an unknown outcome (Error.OutcomeUnknown) is always same-key (or
// after-step-up).
//
// # Running many instances
//
// The service allows 20 token exchanges per minute per Key. Instances of
// one backend share the token through a TokenStore (WithTokenStore): one
// instance exchanges under the store's lock, the others read its token.
// PendingStore (WithPendingStore) records each idempotent write before it is
// sent; after a crash, Client.PendingRequests lists the writes whose outcome
// is unknown and Client.Resume resends them with the same idempotency key
// and body, so the service replays instead of executing twice. Package
// redisstore implements both, and webhooks.Deduper, on Redis.
//
// # Step-up
//
// A 400 step_up_required carries ChallengeID, HostedURL and ExpiresAt. Send
// the end user to HostedURL; once they completed it, resend the same
// parameters with the same idempotency key and x-step-up, which AsStepUp
// and StepUp.Options build from the error:
//
//	order, err := client.QRPay.Pay(ctx, member, params)
//	if su, ok := mwallet.AsStepUp(err); ok {
//		redirect(su.HostedURL) // and wait until the user is done
//		order, err = client.QRPay.Pay(ctx, member, params, su.Options()...)
//	}
//
// # Amounts and assets
//
// Amounts are money.Amount values, exact decimals at the asset's
// ledger_scale, sent as JSON strings. Client.Assets lists the catalogue and
// caches it (ledger_scale never changes once an asset is listed);
// Client.ParseAmount parses a decimal string at an asset's ledger_scale and
// Asset.Display truncates to its display_scale for showing.
//
// # Lists
//
// Every endpoint that answers the list envelope {data, next_cursor,
// has_more} is an iter.Seq2[T, error]: the loop walks every page (keyset
// cursors, newest first) and stops when the service says has_more is false.
// The lists of data that grows (cards, card transactions, remittances,
// payees, deposits, quick KYC bindings, webhook deliveries) take ListParams
// (or their own params embedding it) and have a Pages companion (ListPages,
// TransactionPages, PayeePages, QuickBindingPages) that yields *Page[T]:
// stop after any page, keep its NextCursor, and resume later with
// ListParams{Cursor: saved}, neither repeating nor losing an item. The
// bounded catalogues (QR schemes, card and remittance products, conversion
// dates) are answered in one page and take no ListParams. GET /v1/assets has
// no envelope: Client.Assets returns the catalogue as one value.
package mwallet

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
)

// Version is the SDK version sent in the User-Agent header.
const Version = "0.1.0"

// Client is the root client: the transport that every product line's client
// calls through. It is safe for concurrent use; create one per set of
// credentials and share it. It has no product lines: client.QRPay and the
// others are fields of mwclient.Client, which embeds it next to them
// (mwclient.New).
type Client struct {
	base      string // scheme://host[/prefix], no trailing slash
	creds     Credentials
	cfg       config
	http      *http.Client
	signer    *signer
	auth      *auth
	clock     Clock     // the client's own clock, uncorrected
	skew      skewState // the measured offset of the service's clock
	budget    *retryBudget
	userAgent string
	assets    assetCache
}

// New returns the root client for baseURL (the environment is chosen by the
// address) with the given credentials: the transport of every product line,
// without the lines themselves (mwclient.New builds them all; qrpay.New(c)
// and the like build one). It checks the address and the credentials and
// sends nothing; the first call obtains the access token. Invalid arguments
// give a *ParamError.
func New(baseURL string, creds Credentials, opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c := &Client{cfg: cfg, creds: creds, clock: cfg.clock}
	if cfg.clockOffset != 0 {
		c.clock = offsetClock{base: cfg.clock, offset: cfg.clockOffset}
	}
	c.skew.off = cfg.skewOff
	u, warn, err := checkBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if err := checkCredentials(creds); err != nil {
		return nil, err
	}
	c.base = u
	if warn != "" {
		c.logger().Warn("mwallet: " + warn)
	}
	if creds.APIKey == creds.SigningKey {
		c.logger().Warn("mwallet: the API key and the signing key are equal; they are different values, check the credentials")
	}
	hc := *cfg.httpClient
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if cfg.attemptTimeout > 0 && (hc.Timeout == 0 || hc.Timeout > cfg.attemptTimeout) {
		hc.Timeout = cfg.attemptTimeout
	}
	if tr, ok := hc.Transport.(*http.Transport); ok && tr.TLSClientConfig != nil && tr.TLSClientConfig.InsecureSkipVerify {
		c.logger().Warn("mwallet: the HTTP client skips TLS certificate verification; never use it with real credentials")
	}
	c.http = &hc
	c.signer = newSigner(creds.SigningKey.Reveal())
	c.auth = newAuth(c, cfg.store, tokenStoreKey(creds.ClientID, u), cfg.exchangeLimit)
	c.budget = newRetryBudget(cfg.budgetCapacity)
	c.userAgent = "mwallet-go/" + Version + " (" + runtime.Version() + ")"
	if p := strings.TrimSpace(cfg.userAgent); p != "" && !hasCtl(p) {
		c.userAgent = p + " " + c.userAgent
	}
	return c, nil
}

// checkBaseURL validates the base address: absolute https, or http on a
// loopback host; plain http elsewhere is accepted with a warning.
func checkBaseURL(raw string) (base, warning string, err error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", &ParamError{Param: "baseURL", Reason: "a base URL is required", Code: ""}
	}
	u, perr := url.Parse(raw)
	if perr != nil {
		return "", "", &ParamError{Param: "baseURL", Reason: "not a URL", Code: ""}
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "https" && scheme != "http":
		return "", "", &ParamError{Param: "baseURL", Reason: "the scheme must be https (or http for a local simulator)", Code: ""}
	case u.Host == "" || u.Hostname() == "":
		return "", "", &ParamError{Param: "baseURL", Reason: "the URL has no host", Code: ""}
	case u.User != nil:
		return "", "", &ParamError{Param: "baseURL", Reason: "the URL must not carry user information", Code: ""}
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", "", &ParamError{Param: "baseURL", Reason: "the URL must not carry a query or a fragment", Code: ""}
	}
	if scheme == "http" && !isLoopback(u.Hostname()) {
		warning = "base URL " + u.Redacted() + " uses plain http: tokens and signed requests travel unencrypted; use https outside a local simulator"
	}
	u.Scheme = scheme
	return strings.TrimRight(u.String(), "/"), warning, nil
}

func isLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func checkCredentials(c Credentials) error {
	switch {
	case strings.TrimSpace(c.ClientID) == "":
		return &ParamError{Param: "Credentials.ClientID", Reason: "required", Code: ""}
	case c.APIKey == "":
		return &ParamError{Param: "Credentials.APIKey", Reason: "required", Code: ""}
	case c.SigningKey == "":
		return &ParamError{Param: "Credentials.SigningKey", Reason: "required", Code: ""}
	case hasCtl(c.ClientID):
		return &ParamError{Param: "Credentials.ClientID", Reason: "contains control characters", Code: ""}
	case hasCtl(string(c.APIKey)):
		return &ParamError{Param: "Credentials.APIKey", Reason: "contains control characters", Code: ""}
	}
	return nil
}

// hasCtl reports control characters, which cannot travel in a header.
func hasCtl(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 && b != '\t' || b == 0x7f {
			return true
		}
	}
	return false
}

// String describes the client without credentials.
func (c *Client) String() string {
	return "mwallet.Client{base_url:" + c.base + " client_id:" + c.creds.ClientID + "}"
}

// GoString is String.
func (c *Client) GoString() string { return c.String() }

// Format writes String for every verb, so a Client printed with %+v or %#v
// shows no token or key material.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// BaseURL returns the normalised base address the client calls.
func (c *Client) BaseURL() string { return c.base }

func (c *Client) logger() *slog.Logger {
	if c.cfg.logger != nil {
		return c.cfg.logger
	}
	return slog.Default()
}
