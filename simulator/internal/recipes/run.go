package recipes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Host is what the runner needs of the simulator it drives, besides its
// HTTP surface.
type Host interface {
	// Sign computes the contract's x-signature of a request.
	Sign(signingKey, method, target, ts, nonce string, body []byte) string
	// IsControlPath reports a request target of the control API's
	// namespace.
	IsControlPath(target string) bool
}

// Runner runs recipes against one simulator over HTTP, as the simulator's
// RecipeRunner documents. One runner serves one simulator; it keeps the
// credentials, the token and the saved variables from run to run.
type Runner struct {
	Host       Host
	BaseURL    string
	HTTPClient *http.Client
	// ControlToken, when set, is sent in ControlTokenHeader on every
	// control call that does not set that header itself.
	ControlTokenHeader string
	ControlToken       string
	// Trace, when set, receives every step as it is answered.
	Trace func(Trace)

	creds *credentials
	token string
	vars  map[string]string
}

// credentials are the fields of GET /_sim/credentials the runner uses.
type credentials struct {
	ClientID   string `json:"client_id"`
	APIKey     string `json:"api_key"`
	SigningKey string `json:"signing_key"`
}

// Trace is one answered step of a recipe (the simulator's RecipeTrace).
type Trace struct {
	Index     int
	Call      string
	Method    string
	Path      string
	Status    int
	Code      string
	RequestID string
}

// Result is the answer of a recipe's last step (the simulator's
// RecipeResult).
type Result struct {
	Status    int
	Code      string
	RequestID string
	Body      []byte
}

// Error reports a recipe that did not run as written: a step that failed,
// or a last answer other than the recipe's Expect.
type Error struct {
	Code   string // the recipe's code
	Step   int    // 1-based step number; 0 for the runner's own calls
	Detail string
}

func (e *Error) Error() string {
	if e.Step == 0 {
		return fmt.Sprintf("recipe %s: %s", e.Code, e.Detail)
	}
	return fmt.Sprintf("recipe %s, step %d: %s", e.Code, e.Step, e.Detail)
}

func isWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// Run runs r's steps in order and checks that the last answer is r.Expect.
// It returns the last answer, and a *Error when a step fails or the
// answer differs.
func (rr *Runner) Run(ctx context.Context, r Recipe) (Result, error) {
	if rr.vars == nil {
		rr.vars = map[string]string{}
	}
	fail := func(step int, format string, args ...any) error {
		return &Error{Code: r.Code, Step: step, Detail: fmt.Sprintf(format, args...)}
	}
	if len(r.Steps) == 0 {
		return Result{}, fail(0, "no steps")
	}
	var last Result
	for i, st := range r.Steps {
		res, parsed, err := rr.step(ctx, st)
		if err != nil {
			return last, fail(i+1, "%v", err)
		}
		last = res
		if rr.Trace != nil {
			rr.Trace(Trace{Index: i + 1, Call: st.Call, Method: st.Method, Path: rr.expandOrRaw(st.Path),
				Status: res.Status, Code: res.Code, RequestID: res.RequestID})
		}
		if st.ExpectStatus != 0 && res.Status != st.ExpectStatus {
			return last, fail(i+1, "%s %s answered %d %s, want %d: %s", st.Method, st.Path, res.Status, res.Code, st.ExpectStatus, bytes.TrimSpace(res.Body))
		}
		for name, path := range st.Save {
			v, ok := lookupField(parsed, path)
			if !ok {
				return last, fail(i+1, "save %s: the answer has no field %s: %s", name, path, bytes.TrimSpace(res.Body))
			}
			rr.vars[name] = v
		}
	}
	if last.Status != r.Expect.Status || last.Code != r.Expect.Code {
		return last, fail(len(r.Steps), "answered %d %q, want %d %q: %s", last.Status, last.Code, r.Expect.Status, r.Expect.Code, bytes.TrimSpace(last.Body))
	}
	return last, nil
}

func (rr *Runner) client() *http.Client {
	if rr.HTTPClient != nil {
		return rr.HTTPClient
	}
	return http.DefaultClient
}

// send sends one request and reads the answer.
func (rr *Runner) send(ctx context.Context, method, target string, body []byte, h http.Header) (Result, any, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(rr.BaseURL, "/")+target, rd)
	if err != nil {
		return Result{}, nil, err
	}
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if rr.Host.IsControlPath(target) {
		if rr.ControlToken != "" && req.Header.Get(rr.ControlTokenHeader) == "" {
			req.Header.Set(rr.ControlTokenHeader, rr.ControlToken)
		}
		if isWrite(method) && req.Header.Get("Content-Type") == "" {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	resp, err := rr.client().Do(req)
	if err != nil {
		return Result{}, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return Result{}, nil, err
	}
	res := Result{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id"), Body: b}
	var parsed any
	if len(bytes.TrimSpace(b)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&parsed) == nil && resp.StatusCode >= 400 {
			if m, ok := parsed.(map[string]any); ok {
				res.Code, _ = m["code"].(string)
			}
		}
	}
	return res, parsed, nil
}

// control sends a control call of the runner's own and decodes a 200 answer.
func (rr *Runner) control(ctx context.Context, method, path string, out any) error {
	res, _, err := rr.send(ctx, method, path, nil, nil)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK {
		return fmt.Errorf("%s %s answered %d: %s", method, path, res.Status, bytes.TrimSpace(res.Body))
	}
	return json.Unmarshal(res.Body, out)
}

func (rr *Runner) readCredentials(ctx context.Context) (*credentials, error) {
	if rr.creds == nil {
		var c credentials
		if err := rr.control(ctx, http.MethodGet, "/_sim/credentials", &c); err != nil {
			return nil, fmt.Errorf("read the credentials: %w", err)
		}
		rr.creds = &c
	}
	return rr.creds, nil
}

func (rr *Runner) accessToken(ctx context.Context, c *credentials) (string, error) {
	if rr.token != "" {
		return rr.token, nil
	}
	h := http.Header{}
	h.Set("X-Client-Id", c.ClientID)
	h.Set("X-Api-Key", c.APIKey)
	res, parsed, err := rr.send(ctx, http.MethodPost, "/v1/connect/token", nil, h)
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	tok, _ := lookupField(parsed, "auth_token")
	if res.Status != http.StatusOK || tok == "" {
		return "", fmt.Errorf("token exchange answered %d %s", res.Status, res.Code)
	}
	rr.token = tok
	return tok, nil
}

// step sends one step and returns its answer and the decoded body.
func (rr *Runner) step(ctx context.Context, st Step) (Result, any, error) {
	target, err := rr.expand(st.Path)
	if err != nil {
		return Result{}, nil, err
	}
	method := strings.ToUpper(st.Method)
	var body []byte
	if len(st.Body) > 0 {
		if body, err = rr.expandBody(st.Body); err != nil {
			return Result{}, nil, err
		}
	}
	h := http.Header{}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	switch st.Call {
	case "control":
	case "api":
		c, err := rr.readCredentials(ctx)
		if err != nil {
			return Result{}, nil, err
		}
		tok, err := rr.accessToken(ctx, c)
		if err != nil {
			return Result{}, nil, err
		}
		h.Set("X-Auth-Token", "Bearer "+tok)
		if st.Member != "" {
			v, err := rr.expand(st.Member)
			if err != nil {
				return Result{}, nil, err
			}
			h.Set("X-On-Behalf-Of", v)
		}
		if st.IdempotencyKey != "" {
			v, err := rr.expand(st.IdempotencyKey)
			if err != nil {
				return Result{}, nil, err
			}
			h.Set("X-Idempotency-Key", v)
		}
		if isWrite(method) {
			var clock struct {
				Unix int64 `json:"unix"`
			}
			if err := rr.control(ctx, http.MethodGet, "/_sim/clock", &clock); err != nil {
				return Result{}, nil, fmt.Errorf("read the clock: %w", err)
			}
			ts, nonce := strconv.FormatInt(clock.Unix, 10), uuid.NewString()
			h.Set("X-Timestamp", ts)
			h.Set("X-Nonce", nonce)
			h.Set("X-Signature", rr.Host.Sign(c.SigningKey, method, target, ts, nonce, body))
		}
	default:
		return Result{}, nil, fmt.Errorf("call %q: want control or api", st.Call)
	}
	for k, v := range st.Headers {
		ev, err := rr.expand(v)
		if err != nil {
			return Result{}, nil, err
		}
		h.Set(k, ev)
	}
	return rr.send(ctx, method, target, body, h)
}

// expand replaces {{VAR}} and {{new_uuid:NAME}} in s.
func (rr *Runner) expand(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unclosed {{ in %q", s)
		}
		b.WriteString(s[:i])
		name := strings.TrimSpace(s[i+2 : i+j])
		if n, ok := strings.CutPrefix(name, "new_uuid:"); ok {
			if _, bound := rr.vars[n]; !bound {
				rr.vars[n] = uuid.NewString()
			}
			name = n
		}
		v, ok := rr.vars[name]
		if !ok {
			return "", fmt.Errorf("variable %s is not saved yet", name)
		}
		b.WriteString(v)
		s = s[i+j+2:]
	}
}

// expandOrRaw is expand for traces: a string that does not expand is shown
// as written.
func (rr *Runner) expandOrRaw(s string) string {
	if v, err := rr.expand(s); err == nil {
		return v
	}
	return s
}

// expandBody expands every string of a JSON body and returns it compact,
// without HTML escaping.
func (rr *Runner) expandBody(raw json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	var walk func(any) (any, error)
	walk = func(x any) (any, error) {
		switch t := x.(type) {
		case string:
			return rr.expand(t)
		case []any:
			for i := range t {
				e, err := walk(t[i])
				if err != nil {
					return nil, err
				}
				t[i] = e
			}
		case map[string]any:
			for k := range t {
				e, err := walk(t[k])
				if err != nil {
					return nil, err
				}
				t[k] = e
			}
		}
		return x, nil
	}
	v, err := walk(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// lookupField reads a dotted path ("data.0.id") of a decoded JSON answer as
// a string: strings as they are, numbers and booleans as written.
func lookupField(v any, path string) (string, bool) {
	for _, seg := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[seg]; !ok {
				return "", false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return "", false
			}
			v = t[i]
		default:
			return "", false
		}
	}
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}
