// Package tour drives every business endpoint of a running simulator over
// plain HTTP, with success and error answers, and every webhook event type,
// so that a validator sitting between the tour and the simulator (Prism's
// validation proxy, or the simulator's exchange log) sees the whole API.
// Every operation is also called with a Key lacking the scope mwallet.yaml
// names for it (403 insufficient_scope), every read with a Key holding only
// that scope; at the end the simulator's ledger must balance and its
// invariants hold (GET /_sim/ledger, GET /_sim/invariants).
//
// It speaks the wire protocol itself (token exchange, x-auth-token, request
// signatures, idempotency keys, step-up), as a client in another language
// would, instead of going through the Go SDK: the SDK's own traffic is
// covered by its test suites and the example programs. Request bodies are
// written in JSON.stringify's form (compact, no HTML escaping), so a proxy
// that re-serialises them keeps the signed bytes.
package tour

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// answer is one HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func (a *answer) str(key string) string {
	v, _ := a.json[key].(string)
	return v
}

func (a *answer) code() string { return a.str("code") }

// call describes one business request.
type call struct {
	method, path string
	query        url.Values
	member       string
	body         any  // encoded as JSON when not nil
	keyed        bool // send x-idempotency-key (key, or a fresh one)
	key          string
	stepUp       string
	bearer       bool   // authorization: Bearer instead of x-auth-token
	token        string // override the token
	unsigned     bool   // no signature headers on a write
}

// client talks to the business API (api) and the control API (control).
type client struct {
	ctx         context.Context
	hc          *http.Client
	api         string
	control     string
	clientID    string
	apiKey      string
	signingKey  string
	clockOffset time.Duration // simulator clock minus wall clock
	token       string
}

// jsonBody encodes v the way JSON.stringify does: compact, no HTML escaping.
func jsonBody(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (c *client) do(req *http.Request) (*answer, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	a := &answer{status: resp.StatusCode, header: resp.Header, body: b}
	_ = json.Unmarshal(b, &a.json)
	return a, nil
}

// ctl sends a control call to the simulator itself (never through the
// proxy: the control API is not part of the business document).
func (c *client) ctl(method, path string, body any) (*answer, error) {
	var r io.Reader
	if body != nil {
		b, err := jsonBody(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, c.control+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil || (method != http.MethodGet && method != http.MethodHead) {
		// The control API refuses writes of any other type.
		req.Header.Set("Content-Type", "application/json")
	}
	a, err := c.do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if a.status >= 300 {
		return a, fmt.Errorf("%s %s: %d %s", method, path, a.status, a.body)
	}
	return a, nil
}

// exchange takes an access token of the fixture Key's client id.
func (c *client) exchange(apiKey string) (*answer, error) {
	return c.exchangeFor(c.clientID, apiKey)
}

// exchangeFor takes an access token of the Key clientID.
func (c *client) exchangeFor(clientID, apiKey string) (*answer, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.api+"/v1/connect/token", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-client-id", clientID)
	req.Header.Set("x-api-key", apiKey)
	return c.do(req)
}

// send sends a business call: token, member, idempotency key, step-up and
// signature as the contract requires.
func (c *client) send(k call) (*answer, error) {
	target := k.path
	if len(k.query) > 0 {
		target += "?" + k.query.Encode()
	}
	var body []byte
	if k.body != nil {
		b, err := jsonBody(k.body)
		if err != nil {
			return nil, err
		}
		body = b
	}
	req, err := http.NewRequestWithContext(c.ctx, k.method, c.api+target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	tok := c.token
	if k.token != "" {
		tok = k.token
	}
	if k.bearer {
		req.Header.Set("authorization", "Bearer "+tok)
	} else {
		req.Header.Set("x-auth-token", "Bearer "+tok)
	}
	if k.member != "" {
		req.Header.Set("x-on-behalf-of", k.member)
	}
	if k.keyed {
		key := k.key
		if key == "" {
			key = newUUID()
		}
		req.Header.Set("x-idempotency-key", key)
	}
	if k.stepUp != "" {
		req.Header.Set("x-step-up", k.stepUp)
	}
	if k.method != http.MethodGet && k.method != http.MethodHead && !k.unsigned {
		ts := strconv.FormatInt(time.Now().Add(c.clockOffset).Unix(), 10)
		nonce := newUUID()
		sum := sha256.Sum256(body)
		signing := strings.Join([]string{k.method, target, ts, nonce, hex.EncodeToString(sum[:])}, "\n")
		mac := hmac.New(sha256.New, []byte(c.signingKey))
		mac.Write([]byte(signing))
		req.Header.Set("x-timestamp", ts)
		req.Header.Set("x-nonce", nonce)
		req.Header.Set("x-signature", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return c.do(req)
}
