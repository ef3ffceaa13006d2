// Package mwallet is the Go SDK of the Merchant Wallet, Card, Remittance and
// QR-Payment service.
//
// # Client
//
// One Client, safe for concurrent use, owns everything every call needs; the
// product-line sub-clients are thin typed wrappers that share it:
//
//	client, err := mwallet.NewClient("https://api.example.com", mwallet.Credentials{
//		ClientID:   os.Getenv("MWALLET_CLIENT_ID"),
//		APIKey:     mwallet.Secret(os.Getenv("MWALLET_API_KEY")),
//		SigningKey: mwallet.Secret(os.Getenv("MWALLET_SIGNING_KEY")),
//	}, mwallet.WithLogger(logger))
//
//	client.QRPay        // pay fiat QR codes in digital assets   (package qrpay)
//	client.Cards        // card products, applications, cards    (package cards)
//	client.Remittances  // remittances to saved payees           (package remittance)
//	client.Deposits     // deposits into member balances         (package deposits)
//	client.KYC          // hosted KYC screens and KYC state      (package kyc)
//	client.Members      // members                               (package members)
//	client.Webhooks     // webhook deliveries                    (package webhooks)
//
// The base URL chooses the environment (sandbox and production have
// different addresses). It must be https; plain http is accepted for
// loopback addresses (a local simulator) and logged as a warning elsewhere.
// Package simulator serves the whole contract offline; simulator.New().Client()
// returns a Client wired to it.
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
//     (Unix seconds from the client's clock), x-nonce (new for every attempt)
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
//   - Retries: api_error and unknown codes once, upstream_error and
//     upstream_timeout while attempts last, idempotency_in_progress after 1-2
//     s, rate_limited after Retry-After, network errors for reads and keyed
//     writes; never the do-not-retry codes, a 404 or step_up_required.
//     Backoff is exponential with jitter, bounded by WithDefaultMaxAttempts,
//     WithRetryBackoff, a retry budget shared by the client
//     (WithRetryBudget) and the context: a wait ends the moment the context
//     ends. Each attempt has its own timeout (WithDefaultAttemptTimeout).
//   - Errors: a service answer that is not 2xx is an *Error (code, HTTP
//     status, message, request id and the code's extra fields); a body that
//     is not an error envelope (a proxy's HTML page, an empty body) still
//     gives a sane *Error. Input the SDK rejects before sending is a
//     *ParamError. A call that got no answer is a *TransportError that wraps
//     the cause (errors.Is(err, context.DeadlineExceeded) works).
//   - Logging: with WithLogger, every attempt is logged at debug level
//     (method, path, status, code, attempt, request id, idempotency key).
//     Tokens, keys, signatures and bodies are never logged; Secret and
//     Credentials print as [redacted].
//
// # Retrying a call yourself
//
// After a timeout, a network error or an upstream_timeout the outcome is
// unknown: resend the same parameters with the same key, which the error
// carries (IdempotencyKeyOf). After a definite business failure the same key
// replays that failure; correct the cause and send with a new key (the
// default when no key is given).
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
// parameters with the same idempotency key and x-step-up, which StepUpResend
// builds from the error:
//
//	order, err := client.QRPay.Pay(ctx, member, params)
//	var apiErr *mwallet.Error
//	if errors.As(err, &apiErr) && apiErr.Code == mwallet.CodeStepUpRequired {
//		redirect(apiErr.HostedURL) // and wait until the user is done
//		order, err = client.QRPay.Pay(ctx, member, params, mwallet.StepUpResend(apiErr)...)
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
// List methods return iter.Seq2[T, error]: the loop walks every page (keyset
// cursors, newest first) and stops when the service says has_more is false.
package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/internal/api"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Version is the SDK version sent in the User-Agent header.
const Version = "0.1.0"

// Client is the root client. It is safe for concurrent use; create one per
// set of credentials and share it.
type Client struct {
	base      string // scheme://host[/prefix], no trailing slash
	creds     Credentials
	cfg       config
	http      *http.Client
	signer    *signer
	auth      *auth
	budget    *retryBudget
	userAgent string
	assets    assetCache

	// QRPay pays fiat QR codes in digital assets.
	QRPay *qrpay.Client
	// Cards manages card products, applications and cards.
	Cards *cards.Client
	// Remittances orders remittances to saved payees.
	Remittances *remittance.Client
	// Deposits declares deposits into member balances.
	Deposits *deposits.Client
	// KYC issues hosted KYC screens and reads KYC state.
	KYC *kyc.Client
	// Members reads members.
	Members *members.Client
	// Webhooks manages webhook deliveries.
	Webhooks *webhooks.Deliveries
}

// NewClient returns a Client for baseURL (the environment is chosen by the
// address) with the given credentials. It checks the address and the
// credentials and sends nothing; the first call obtains the access token.
// Invalid arguments give a *ParamError.
func NewClient(baseURL string, creds Credentials, opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c := &Client{cfg: cfg, creds: creds}
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
	c.QRPay = qrpay.New(c)
	c.Cards = cards.New(c)
	c.Remittances = remittance.New(c)
	c.Deposits = deposits.New(c)
	c.KYC = kyc.New(c)
	c.Members = members.New(c)
	c.Webhooks = webhooks.NewDeliveries(c)
	return c, nil
}

// checkBaseURL validates the base address: absolute https, or http on a
// loopback host; plain http elsewhere is accepted with a warning.
func checkBaseURL(raw string) (base, warning string, err error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", api.Param("baseURL", "a base URL is required", "")
	}
	u, perr := url.Parse(raw)
	if perr != nil {
		return "", "", api.Param("baseURL", "not a URL", "")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "https" && scheme != "http":
		return "", "", api.Param("baseURL", "the scheme must be https (or http for a local simulator)", "")
	case u.Host == "" || u.Hostname() == "":
		return "", "", api.Param("baseURL", "the URL has no host", "")
	case u.User != nil:
		return "", "", api.Param("baseURL", "the URL must not carry user information", "")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", "", api.Param("baseURL", "the URL must not carry a query or a fragment", "")
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
		return api.Param("Credentials.ClientID", "required", "")
	case c.APIKey == "":
		return api.Param("Credentials.APIKey", "required", "")
	case c.SigningKey == "":
		return api.Param("Credentials.SigningKey", "required", "")
	case hasCtl(c.ClientID):
		return api.Param("Credentials.ClientID", "contains control characters", "")
	case hasCtl(string(c.APIKey)):
		return api.Param("Credentials.APIKey", "contains control characters", "")
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

// ownedHeaders are set by the client; WithHeader cannot override them.
var ownedHeaders = map[string]bool{
	"X-Auth-Token": true, "Authorization": true, "X-Client-Id": true, "X-Api-Key": true,
	"X-Timestamp": true, "X-Nonce": true, "X-Signature": true, "X-Idempotency-Key": true,
	"X-On-Behalf-Of": true, "X-Step-Up": true, "Content-Type": true, "Content-Length": true,
	"Host": true, "User-Agent": true,
}

// Do sends one logical call: it validates the request, encodes the body
// once, and runs the attempts with token, signature, idempotency key and
// retries; a 2xx JSON body is decoded into out when out is non-nil. It
// implements api.Caller, which the sub-clients use; call it directly for
// endpoints the SDK has no method for.
//
// The Response is returned whenever something was sent, also with an error.
func (c *Client) Do(ctx context.Context, r *api.Request, out any, opts ...api.CallOption) (*api.Response, error) {
	o := api.Apply(opts)
	resp, err := c.do(ctx, r, out, o)
	if o.OnResponse != nil && resp != nil {
		o.OnResponse(resp)
	}
	return resp, err
}

func (c *Client) do(ctx context.Context, r *api.Request, out any, o api.CallOptions) (*api.Response, error) {
	if ctx == nil {
		return nil, api.Param("ctx", "a context is required", "")
	}
	sp, err := c.spec(r, o)
	if err != nil {
		return nil, err
	}
	if c.cfg.pending != nil && r.Idempotent && !r.Sensitive && sp.idemKey != "" {
		p := c.pendingOf(sp)
		sp.pending = &p
	}
	return c.run(ctx, sp, out, o)
}

// spec validates a request and builds its callSpec: method, path, member,
// idempotency key, step-up and the body encoded once.
func (c *Client) spec(r *api.Request, o api.CallOptions) (*callSpec, error) {
	if r == nil {
		return nil, api.Param("request", "a request is required", "")
	}
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	if method == "" || strings.ContainsAny(method, " \t\r\n") {
		return nil, api.Param("Method", "an HTTP method is required", "")
	}
	if !strings.HasPrefix(r.Path, "/") || strings.ContainsAny(r.Path, "?#") || hasCtl(r.Path) {
		return nil, api.Param("Path", "must be an escaped path beginning with / and carry no query", "")
	}
	sp := &callSpec{method: method, path: r.Path, stepUp: strings.TrimSpace(o.StepUp)}
	if r.MemberScoped {
		sp.member = strings.TrimSpace(r.Member)
		if sp.member == "" {
			return nil, api.Param("member", "a member identifier (external_member_id or mem_ id) is required", api.CodeMemberContextRequired)
		}
		if hasCtl(sp.member) {
			return nil, api.Param("member", "contains control characters", api.CodeMemberContextRequired)
		}
	}
	if o.IdempotencyKey != "" {
		if !ValidIdempotencyKey(o.IdempotencyKey) {
			return nil, api.Param("idempotency key", "must be UUID-shaped (8-4-4-4-12 hex digits)", api.CodeIdempotencyKeyInvalid)
		}
		sp.idemKey = o.IdempotencyKey
	} else if r.Idempotent {
		sp.idemKey = uuid.NewString()
	}
	sp.keyed = sp.idemKey != ""
	if hasCtl(sp.stepUp) {
		return nil, api.Param("step-up challenge id", "contains control characters", "")
	}
	if r.Body != nil {
		b, err := encodeBody(r.Body)
		if err != nil {
			return nil, err
		}
		sp.body, sp.hasBody = b, true
	}
	if len(r.Query) > 0 {
		sp.query = r.Query.Encode()
	}
	sp.extra = o.Header
	return sp, nil
}

// encodeBody encodes the request body once per logical call. A
// json.RawMessage is sent byte for byte.
func encodeBody(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, api.Param("body", "not valid JSON", api.CodeInvalidRequest)
		}
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &api.ParamError{Param: "body", Reason: "cannot be encoded as JSON: " + err.Error(), Code: api.CodeInvalidRequest}
	}
	return b, nil
}

// callSpec is one logical call, fixed across its attempts.
type callSpec struct {
	method   string
	path     string // escaped path, for logs
	query    string // encoded query
	body     []byte
	hasBody  bool
	member   string
	idemKey  string
	keyed    bool // sends an idempotency key (or is safe to resend as if it did)
	stepUp   string
	exchange bool // token exchange: credential headers, no token, no signature
	extra    http.Header
	// pending is the PendingStore record of the call, nil when not recorded.
	pending *PendingRequest
	// resumed marks Client.Resume: an earlier process may have sent it.
	resumed bool
}

// signed reports whether the call carries a signature.
func (s *callSpec) signed() bool {
	return !s.exchange && s.method != http.MethodGet && s.method != http.MethodHead
}

// safeToResend reports whether an attempt that may have reached the service
// can be sent again: reads, and writes with an idempotency key.
func (s *callSpec) safeToResend() bool {
	return s.keyed || s.method == http.MethodGet || s.method == http.MethodHead
}

// attempt is the state of one logical call across its HTTP attempts.
type attempt struct {
	c           *Client
	spec        *callSpec
	requestURI  string
	maxAttempts int

	attempts        int
	retries         int
	spent           int // retry budget taken
	reauthed        bool
	apiErrorRetried bool
	tokenValue      string
	decision        retryDecision
	prepareErr      error
	// uncertain is set once an attempt may have executed without a final
	// answer (network error, 5xx, idempotency_in_progress).
	uncertain bool

	// Outcome of the latest attempt.
	status  int
	header  http.Header
	body    []byte
	apiErr  *api.Error
	netErr  error
	readErr error
}

// prepare sets the per-attempt headers: token, timestamp, nonce, signature.
func (a *attempt) prepare(req *http.Request) error {
	h := req.Header
	if !a.spec.exchange {
		tok, err := a.c.auth.token(req.Context())
		if err != nil {
			a.prepareErr = err
			return err
		}
		a.tokenValue = tok.value
		h.Set("X-Auth-Token", tok.header)
	}
	if a.spec.signed() {
		ts := strconv.FormatInt(a.c.cfg.now().Unix(), 10)
		nonce := uuid.NewString()
		h.Set("X-Timestamp", ts)
		h.Set("X-Nonce", nonce)
		h.Set("X-Signature", a.c.signer.sign(a.spec.method, a.requestURI, ts, nonce, a.spec.body))
	}
	return nil
}

// run sends the attempts of one call through retryablehttp and turns the
// outcome into a Response and an error.
func (c *Client) run(ctx context.Context, sp *callSpec, out any, o api.CallOptions) (*api.Response, error) {
	target := c.base + sp.path
	if sp.query != "" {
		target += "?" + sp.query
	}
	var rawBody any
	if sp.hasBody {
		rawBody = sp.body
	} else if sp.signed() {
		rawBody = []byte{}
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, sp.method, target, rawBody)
	if err != nil {
		return nil, &api.ParamError{Param: "request", Reason: "cannot build the HTTP request: " + err.Error()}
	}
	if sp.signed() {
		// net/http replays a request with an idempotency key by itself when a
		// kept-alive connection fails, with the same headers: the nonce would
		// be reused. Without GetBody (and with a non-nil body) it never
		// replays; the retry loop resends with a fresh nonce instead.
		req.GetBody = nil
	}
	a := &attempt{c: c, spec: sp, requestURI: req.URL.RequestURI(), maxAttempts: c.cfg.maxAttempts}
	if o.MaxAttempts > 0 {
		a.maxAttempts = o.MaxAttempts
	}
	h := req.Header
	for k, vs := range sp.extra {
		if ck := http.CanonicalHeaderKey(k); !ownedHeaders[ck] {
			for _, v := range vs {
				h.Add(ck, v)
			}
		}
	}
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.userAgent)
	if sp.hasBody {
		h.Set("Content-Type", "application/json")
	}
	if sp.exchange {
		h.Set("X-Client-Id", c.creds.ClientID)
		h.Set("X-Api-Key", c.creds.APIKey.Reveal())
	}
	if sp.member != "" {
		h.Set("X-On-Behalf-Of", sp.member)
	}
	if sp.idemKey != "" {
		h.Set("X-Idempotency-Key", sp.idemKey)
	}
	if sp.stepUp != "" {
		h.Set("X-Step-Up", sp.stepUp)
	}
	if err := a.prepare(req.Request); err != nil {
		return nil, err
	}
	if sp.pending != nil {
		if err := c.recordPending(ctx, sp); err != nil {
			return nil, err
		}
	}
	hc := c.http
	if o.AttemptTimeout > 0 {
		cp := *c.http
		cp.Timeout = o.AttemptTimeout
		hc = &cp
	}
	rc := &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // the client logs by itself, without secrets
		RetryWaitMin: c.cfg.minBackoff,
		RetryWaitMax: c.cfg.maxBackoff,
		// checkRetry decides; this bound only keeps the loop finite.
		RetryMax:     a.maxAttempts + 1,
		CheckRetry:   a.checkRetry,
		Backoff:      a.backoffHook,
		PrepareRetry: a.prepareRetry,
		ErrorHandler: a.errorHandler,
	}
	resp, err := rc.Do(req)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	meta, err := a.outcome(ctx, err, out)
	if sp.pending != nil {
		c.settlePending(ctx, sp, a)
	}
	return meta, err
}

// outcome turns the last attempt into the call's Response and error, and
// decodes a 2xx body into out.
func (a *attempt) outcome(ctx context.Context, err error, out any) (*api.Response, error) {
	sp := a.spec
	meta := a.response()
	if err != nil || a.netErr != nil || a.readErr != nil {
		return meta, a.failure(ctx, err)
	}
	if a.apiErr != nil {
		return meta, a.apiErr
	}
	if a.status < 200 || a.status > 299 {
		return meta, decodeError(a.status, a.header, a.body, a.c.cfg.now())
	}
	if out != nil && len(a.body) > 0 {
		if err := json.Unmarshal(a.body, out); err != nil {
			return meta, fmt.Errorf("mwallet: %s %s: decode the %d response (request_id %s): %w", sp.method, sp.path, a.status, meta.RequestID, err)
		}
	}
	return meta, nil
}

// response builds the metadata of the last attempt; nil when nothing was
// answered.
func (a *attempt) response() *api.Response {
	if a.attempts == 0 {
		return nil
	}
	r := &api.Response{StatusCode: a.status, IdempotencyKey: a.spec.idemKey, Attempts: a.attempts, Header: a.header}
	if a.header != nil {
		r.RequestID = a.header.Get("X-Request-Id")
		r.Replayed = isReplay(a.header)
	}
	if r.RequestID == "" && a.apiErr != nil {
		r.RequestID = a.apiErr.RequestID
	}
	return r
}

// failure builds the error of a call that ended without a usable answer.
func (a *attempt) failure(ctx context.Context, err error) error {
	if a.prepareErr != nil {
		if a.apiErr != nil && ctx.Err() == nil {
			return fmt.Errorf("%w (after %w)", a.prepareErr, a.apiErr)
		}
		return a.prepareErr
	}
	cause := err
	switch {
	case a.netErr != nil:
		cause = a.netErr
	case a.readErr != nil:
		cause = a.readErr
	}
	if ctx.Err() != nil && a.apiErr != nil {
		// The context ended while waiting to retry: report both.
		return fmt.Errorf("mwallet: %s %s: stopped waiting to retry: %w; last answer: %w", a.spec.method, a.spec.path, ctx.Err(), a.apiErr)
	}
	if cause == nil {
		cause = errors.New("no answer")
	}
	if ctx.Err() != nil && !errors.Is(cause, ctx.Err()) {
		cause = fmt.Errorf("%w (%w)", ctx.Err(), cause)
	}
	return &TransportError{
		Method: a.spec.method, Path: a.spec.path, Attempts: a.attempts,
		IdempotencyKey: a.spec.idemKey, NotSent: a.attempts > 0 && classifyNetErr(a.netErr) == netNotSent,
		Err: cause,
	}
}
