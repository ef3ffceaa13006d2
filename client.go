// Package mwallet is the Go SDK of the Merchant Wallet, Card, Remittance and
// QR-Payment service.
//
// One Client owns token caching, request signing, idempotency keys, the retry
// loop and error decoding; the product-line sub-clients (QRPay, Cards,
// Remittances, Deposits, KYC, Members, Webhooks) are thin typed wrappers that
// share it.
package mwallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/internal/api"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Secret is a credential value. It prints as [redacted] through fmt, %v, %+v,
// %#v and JSON, so it never reaches a log line by accident.
type Secret string

// String returns "[redacted]".
func (Secret) String() string { return "[redacted]" }

// GoString returns "[redacted]".
func (Secret) GoString() string { return "[redacted]" }

// MarshalJSON writes "[redacted]".
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"[redacted]"`), nil }

// Reveal returns the secret value itself. Only the client calls it.
func (s Secret) Reveal() string { return string(s) }

// Credentials identify the merchant's API Key. APIKey is used only to obtain
// tokens; SigningKey only to sign writes. Do not mix them up.
type Credentials struct {
	ClientID   string
	APIKey     Secret
	SigningKey Secret
}

// Option configures a Client.
type Option func(*config)

type config struct {
	httpClient *http.Client
	now        func() time.Time
}

// WithHTTPClient sets the HTTP client used for every request.
func WithHTTPClient(h *http.Client) Option { return func(c *config) { c.httpClient = h } }

// WithClock sets the clock used for signing timestamps and token expiry
// (tests use the simulator's clock).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Client is the root client. It is safe for concurrent use.
type Client struct {
	baseURL string
	creds   Credentials
	cfg     config

	mu       sync.Mutex
	token    string
	tokenExp time.Time

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
// address) with the given credentials.
func NewClient(baseURL string, creds Credentials, opts ...Option) (*Client, error) {
	if strings.TrimSpace(baseURL) == "" {
		return nil, errors.New("mwallet: base URL is required")
	}
	if creds.ClientID == "" || creds.APIKey == "" || creds.SigningKey == "" {
		return nil, errors.New("mwallet: client id, API key and signing key are required")
	}
	cfg := config{httpClient: http.DefaultClient, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	c := &Client{baseURL: strings.TrimRight(baseURL, "/"), creds: creds, cfg: cfg}
	c.QRPay = qrpay.New(c)
	c.Cards = cards.New(c)
	c.Remittances = remittance.New(c)
	c.Deposits = deposits.New(c)
	c.KYC = kyc.New(c)
	c.Members = members.New(c)
	c.Webhooks = webhooks.NewDeliveries(c)
	return c, nil
}

func (c *Client) accessToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.cfg.now().Add(time.Minute).Before(c.tokenExp) {
		return c.token, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v1/connect/token", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("x-client-id", c.creds.ClientID)
	req.Header.Set("x-api-key", c.creds.APIKey.Reveal())
	resp, err := c.cfg.httpClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("mwallet: token exchange: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 {
		return "", decodeError(resp, b)
	}
	var tr struct {
		AuthToken string `json:"auth_token"`
		ExpiredAt int64  `json:"expired_at"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		return "", fmt.Errorf("mwallet: token exchange: %w", err)
	}
	c.token, c.tokenExp = tr.AuthToken, time.Unix(tr.ExpiredAt, 0)
	return c.token, nil
}

// Do sends one call; see api.Caller.
func (c *Client) Do(ctx context.Context, r *api.Request, out any, opts ...api.CallOption) (*api.Response, error) {
	o := api.Apply(opts)
	if r.MemberScoped && strings.TrimSpace(r.Member) == "" {
		return nil, api.Param("member", "a member identifier is required", api.CodeMemberContextRequired)
	}
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = json.Marshal(r.Body); err != nil {
			return nil, fmt.Errorf("mwallet: encode body: %w", err)
		}
	}
	key := o.IdempotencyKey
	if r.Idempotent && key == "" {
		key = newUUID()
	}
	tok, err := c.accessToken(ctx)
	if err != nil {
		return nil, err
	}
	pathQ := r.Path
	if len(r.Query) > 0 {
		pathQ += "?" + r.Query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, c.baseURL+pathQ, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-auth-token", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.MemberScoped {
		req.Header.Set("x-on-behalf-of", strings.TrimSpace(r.Member))
	}
	if key != "" {
		req.Header.Set("x-idempotency-key", key)
	}
	if o.StepUp != "" {
		req.Header.Set("x-step-up", o.StepUp)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		ts := fmt.Sprint(c.cfg.now().Unix())
		nonce := newUUID()
		req.Header.Set("x-timestamp", ts)
		req.Header.Set("x-nonce", nonce)
		req.Header.Set("x-signature", sign(c.creds.SigningKey.Reveal(), r.Method, pathQ, ts, nonce, body))
	}
	resp, err := c.cfg.httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mwallet: %s %s: %w", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	meta := &api.Response{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id"), Replayed: resp.Header.Get("X-Idempotent-Replay") == "true", IdempotencyKey: key, Attempts: 1, Header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return meta, decodeError(resp, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return meta, fmt.Errorf("mwallet: decode %s %s: %w", r.Method, r.Path, err)
		}
	}
	return meta, nil
}

func decodeError(resp *http.Response, b []byte) error {
	e := &api.Error{HTTPStatus: resp.StatusCode}
	if json.Unmarshal(b, e) != nil || e.Code == "" {
		e.Code = api.CodeAPIError
		e.Type = "api_error"
		e.Message = http.StatusText(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	return e
}
