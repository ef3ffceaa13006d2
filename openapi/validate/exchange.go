package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/mwallet/mwallet-go/simulator"
)

// Violation is one disagreement between an exchange and the documents.
type Violation struct {
	// Key names the operation: "METHOD /template STATUS" for served
	// exchanges, "webhook EVENT_TYPE" for deliveries, "no route METHOD PATH"
	// for requests that no document describes.
	Key string
	// Kind is request, response or webhook.
	Kind string
	// Detail is the validator's message.
	Detail string
	// Where locates the exchange in the log (file, instance, sequence).
	Where string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s [%s] %s: %s", v.Key, v.Kind, v.Where, v.Detail)
}

// Counts tallies what was validated.
type Counts struct {
	Exchanges int // lines read
	Requests  int // requests validated against a route
	// RefusedInvalid counts requests that break the document and were
	// refused (4xx or 5xx, or a dropped connection): the document says they
	// are invalid and the simulator did not execute them as valid.
	RefusedInvalid int
	Responses      int // responses validated
	Dropped        int // exchanges that ended without a response
	Webhooks       int // webhook deliveries validated
	NoRoute        int // requests no document describes; their answers are checked as not_found envelopes
	// LenientAccepted counts requests accepted although a parameter the
	// document marks x-lenient (an invalid value falls back to its default)
	// broke its schema.
	LenientAccepted int
	// NoContentType counts JSON bodies sent without Content-Type. The
	// simulator refuses them (a write with a body says application/json:
	// the README's reading of what the specification leaves open), so one
	// answered 2xx is a violation; the body is still validated as JSON.
	NoContentType int
	// Oversized counts requests whose body was cut in the log (over 1 MiB):
	// only their answer is validated.
	Oversized int
	// Head counts HEAD requests validated as the GET of their path.
	Head int
	// GuardRefused counts requests to a /_sim path no document describes
	// that the control API's guard refused before routing (400
	// invalid_request for a Host that does not name the simulator, 401
	// invalid_token without the control token).
	GuardRefused int
	// FaultNoRoute counts requests no document describes that a test
	// answered with an injected fault (error or error_after): the answer is
	// the fault's, checked as an error envelope with X-Request-Id.
	FaultNoRoute int
	// PerOperation counts requests per "METHOD /template" (business and
	// control) and per "webhook EVENT".
	PerOperation map[string]int
}

// Checker validates exchanges against the documents.
type Checker struct {
	docs                *Documents
	business, control   *router
	businessC, controlC *router
	notFoundSchema      *openapi3.SchemaRef // 404 of an undocumented route
	Counts              Counts
	// Refused groups the refused invalid requests by operation, status and
	// the first line of the validator's complaint (for -v).
	Refused               map[string]int
	violations            []Violation
	requestOpts, respOpts *openapi3filter.Options
	headOpts              *openapi3filter.Options // responses to HEAD: no body
	webhookOpts           *openapi3filter.Options
}

// NewChecker returns a Checker of docs.
func NewChecker(docs *Documents) (*Checker, error) {
	c := &Checker{
		docs:      docs,
		business:  newRouter(docs.Business),
		control:   newRouter(docs.Control),
		businessC: newRouter(docs.BusinessClosed),
		controlC:  newRouter(docs.ControlClosed),
	}
	c.Counts.PerOperation = map[string]int{}
	c.Refused = map[string]int{}
	c.requestOpts = &openapi3filter.Options{MultiError: true, AuthenticationFunc: authenticate, SkipSettingDefaults: true}
	c.respOpts = &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, AuthenticationFunc: authenticate}
	c.headOpts = &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, AuthenticationFunc: authenticate, ExcludeResponseBody: true}
	c.webhookOpts = &openapi3filter.Options{MultiError: true, AuthenticationFunc: authenticate, SkipSettingDefaults: true}
	s := docs.BusinessClosed.Components.Schemas["Error404"]
	if s == nil {
		return nil, errors.New("mwallet.yaml: components.schemas.Error404 missing")
	}
	c.notFoundSchema = closedRef(s)
	return c, nil
}

// closedRef wraps a schema so that no property beyond those it evaluates
// is allowed.
func closedRef(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	w := &openapi3.Schema{AllOf: openapi3.SchemaRefs{s}}
	w.UnevaluatedProperties = openapi3.BoolSchema{Has: &falseValue}
	return openapi3.NewSchemaRef("", w)
}

// Violations returns every violation found so far.
func (c *Checker) Violations() []Violation { return c.violations }

func (c *Checker) add(v Violation) { c.violations = append(c.violations, v) }

// authenticate checks that the headers of a security scheme are present;
// whether the token or the signature is right is the simulator's concern
// (and its answer is validated like any other).
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	s := in.SecurityScheme
	switch {
	case s.Type == "apiKey" && s.In == "header":
		if strings.TrimSpace(h.Get(s.Name)) == "" {
			return fmt.Errorf("header %s missing", s.Name)
		}
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		v := h.Get("Authorization")
		if len(v) < 8 || !strings.EqualFold(v[:7], "bearer ") {
			return errors.New("authorization: Bearer missing")
		}
	default:
		return fmt.Errorf("security scheme %s of type %s not checked", in.SecuritySchemeName, s.Type)
	}
	return nil
}

// Check validates one exchange of the log; where locates it in reports.
func (c *Checker) Check(ctx context.Context, x *simulator.Exchange, where string) {
	c.Counts.Exchanges++
	switch x.Kind {
	case "webhook":
		c.checkWebhook(ctx, x, where)
	default:
		c.checkServed(ctx, x, where)
	}
}

func httpRequest(m *simulator.LoggedMessage, base string) (*http.Request, []byte, error) {
	body, bodyErr := messageBody(m)
	if bodyErr != nil {
		body = nil
	}
	target := m.Target
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		target = base + target
	}
	r, err := http.NewRequest(m.Method, target, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	r.Header = m.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	return r, body, bodyErr
}

func messageBody(m *simulator.LoggedMessage) ([]byte, error) {
	if m.Truncated {
		return nil, errors.New("body truncated in the log")
	}
	if m.BodyBase64 != nil {
		return m.BodyBase64, nil
	}
	return []byte(m.Body), nil
}

func (c *Checker) checkServed(ctx context.Context, x *simulator.Exchange, where string) {
	req, body, bodyErr := httpRequest(&x.Request, "http://simulator")
	if req == nil {
		c.add(Violation{Key: "unreadable " + x.Request.Method + " " + x.Request.Target, Kind: "request", Detail: bodyErr.Error(), Where: where})
		return
	}
	path := req.URL.EscapedPath()
	plain, closed := c.business, c.businessC
	if controlPath(path) {
		plain, closed = c.control, c.controlC
	}
	// HEAD on a path whose GET is documented is that GET without its body
	// (RFC 9110, 9.3.2; both documents say so in their descriptions): the
	// request and the answer are validated as the GET's.
	method := req.Method
	if method == http.MethodHead {
		if r, _, _ := plain.match(http.MethodHead, path); r == nil {
			method = http.MethodGet
		}
	}
	route, params, _ := plain.match(method, path)
	if route == nil {
		c.checkNoRoute(x, req, where, plain.methods(path))
		return
	}
	opKey := req.Method + " " + route.Path
	c.Counts.PerOperation[opKey]++
	c.Counts.Requests++
	status := 0
	if x.Response != nil {
		status = x.Response.Status
	}
	key := fmt.Sprintf("%s %d", opKey, status)

	// The request, against the document as published.
	var reqErr error
	switch {
	case bodyErr != nil:
		c.Counts.Oversized++
		if status >= 200 && status < 300 {
			c.add(Violation{Key: key, Kind: "request", Where: where, Detail: "a request body over 1 MiB was accepted"})
		}
	default:
		if len(body) > 0 && req.Header.Get("Content-Type") == "" && json.Valid(body) {
			c.Counts.NoContentType++
			if status >= 200 && status < 300 {
				c.add(Violation{Key: key, Kind: "request", Where: where,
					Detail: "a JSON body without Content-Type was accepted; a write with a body must say application/json (400 invalid_request)"})
			}
			// Its body is still checked against the document.
			req.Header.Set("Content-Type", "application/json")
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: c.requestOpts}
		reqErr = openapi3filter.ValidateRequest(ctx, in)
	}
	if x.Response == nil {
		c.Counts.Dropped++
		if reqErr != nil {
			c.Counts.RefusedInvalid++
		}
		return
	}
	if reqErr != nil {
		switch {
		case status < 200 || status >= 300:
			c.Counts.RefusedInvalid++
			c.Refused[key+": "+firstComplaint(reqErr)]++
		case onlyLenient(reqErr):
			c.Counts.LenientAccepted++
		default:
			c.add(Violation{Key: key, Kind: "request", Where: where,
				Detail: "accepted a request the document forbids: " + oneLine(reqErr.Error())})
		}
	}

	// The response, against the closed-world document.
	croute, cparams, _ := closed.match(method, path)
	req2, _, _ := httpRequest(&x.Request, "http://simulator")
	respBody, err := messageBody(x.Response)
	if err != nil {
		c.add(Violation{Key: key, Kind: "response", Detail: err.Error(), Where: where})
		return
	}
	c.Counts.Responses++
	opts := c.respOpts
	if req.Method != method { // HEAD as GET
		// kin-openapi does not validate answers to HEAD at all. The log
		// holds what the handler wrote, the GET's answer, which net/http
		// does not send: validate it as the GET's; without a body, the
		// status and headers.
		req2.Method = method
		c.Counts.Head++
		if len(respBody) == 0 {
			opts = c.headOpts
			c.checkHeadContentType(croute, x.Response, key, where)
		}
	}
	rin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req2, PathParams: cparams, Route: croute, Options: opts},
		Status:                 status,
		Header:                 x.Response.Header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, rin); err != nil {
		c.add(Violation{Key: key, Kind: "response", Detail: oneLine(err.Error()), Where: where})
	}
}

// checkHeadContentType checks what ValidateResponse leaves out for a HEAD
// answered as its GET without a body: a documented status that has content
// answers with one of its media types.
func (c *Checker) checkHeadContentType(route *routers.Route, r *simulator.LoggedMessage, key, where string) {
	ref := route.Operation.Responses.Status(r.Status)
	if ref == nil || ref.Value == nil || len(ref.Value.Content) == 0 {
		return // an undocumented status is reported by ValidateResponse
	}
	ct := r.Header.Get("Content-Type")
	if ref.Value.Content.Get(ct) == nil {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: fmt.Sprintf("the answer to HEAD has Content-Type %q, which the GET's %d answer does not list", ct, r.Status)})
	}
}

// onlyLenient reports whether every error of a request validation is about
// a parameter marked x-lenient: true (the service answers an invalid value
// with its default instead of refusing it).
func onlyLenient(err error) bool {
	var errs []error
	var me openapi3.MultiError
	if errors.As(err, &me) {
		errs = me
	} else {
		errs = []error{err}
	}
	if len(errs) == 0 {
		return false
	}
	for _, e := range errs {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) || re.Parameter == nil {
			return false
		}
		if lenient, _ := re.Parameter.Extensions["x-lenient"].(bool); !lenient {
			return false
		}
	}
	return true
}

// checkNoRoute checks the answer to a request that no document describes:
// 404 not_found in the error envelope with X-Request-Id (the specification
// keeps not_found on 404 and gives 405 no code). When the path is documented
// with other methods (documented lists them), the answer carries an Allow
// header naming exactly those methods, and HEAD where GET is one of them.
func (c *Checker) checkNoRoute(x *simulator.Exchange, req *http.Request, where string, documented []string) {
	c.Counts.NoRoute++
	key := "no route " + req.Method + " " + req.URL.EscapedPath()
	if x.Response == nil {
		c.Counts.Dropped++
		return
	}
	r := x.Response
	if (x.Fault == string(simulator.FaultError) || x.Fault == string(simulator.FaultErrorAfter)) && r.Status != http.StatusNotFound {
		c.Counts.FaultNoRoute++
		c.checkFaultAnswer(r, key, where)
		return
	}
	if guardRefusal(req.URL.EscapedPath(), r) {
		// The control API's guard answers before routing: a Host that
		// does not name the simulator (400 invalid_request) or a missing
		// control token (401 invalid_token), on any /_sim path.
		c.Counts.GuardRefused++
		if r.Header.Get("X-Request-Id") == "" {
			c.add(Violation{Key: key, Kind: "response", Where: where, Detail: "no X-Request-Id header"})
		}
		return
	}
	if r.Status != http.StatusNotFound {
		c.add(Violation{Key: key, Kind: "response", Where: where,
			Detail: fmt.Sprintf("status %d; an undocumented route is answered 404 not_found", r.Status)})
		return
	}
	if r.Header.Get("X-Request-Id") == "" {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: "no X-Request-Id header"})
	}
	if len(documented) > 0 {
		if got, want := allowSet(r.Header.Get("Allow")), allowOf(documented); got != want {
			c.add(Violation{Key: key, Kind: "response", Where: where,
				Detail: fmt.Sprintf("Allow %q; the documents serve this path with %s", r.Header.Get("Allow"), want)})
		}
	}
	var v any
	if err := json.Unmarshal([]byte(r.Body), &v); err != nil {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: fmt.Sprintf("body is not the JSON error envelope (Content-Type %q): %.60q", r.Header.Get("Content-Type"), r.Body)})
		return
	}
	if err := c.notFoundSchema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: "not a not_found envelope: " + oneLine(err.Error())})
	}
}

// controlPath reports whether an escaped path is in the control API's
// namespace as the simulator reads it: its first non-empty segment,
// decoded, is _sim (/_sim/clock, /%5Fsim/clock, //_sim/clock).
func controlPath(escaped string) bool {
	for _, seg := range strings.Split(escaped, "/") {
		if seg == "" {
			continue
		}
		v, err := url.PathUnescape(seg)
		return err == nil && v == "_sim"
	}
	return false
}

// guardRefusal reports the control guard's answer on a path of the control
// namespace (controlPath): 401 invalid_token or 400 invalid_request in the
// error envelope. The guard answers before routing, on every spelling.
func guardRefusal(escaped string, r *simulator.LoggedMessage) bool {
	if !controlPath(escaped) {
		return false
	}
	var env struct {
		Code string `json:"code"`
	}
	if json.Unmarshal([]byte(r.Body), &env) != nil {
		return false
	}
	return (r.Status == http.StatusUnauthorized && env.Code == "invalid_token") ||
		(r.Status == http.StatusBadRequest && env.Code == "invalid_request")
}

// allowOf is the Allow header a path documented with methods carries, in
// canonical form: the methods and HEAD where GET is one of them.
func allowOf(methods []string) string {
	set := append([]string(nil), methods...)
	for _, m := range methods {
		if m == http.MethodGet {
			set = append(set, http.MethodHead)
		}
	}
	return allowSet(strings.Join(set, ","))
}

// allowSet is an Allow header in canonical form: sorted, deduplicated,
// comma-separated.
func allowSet(h string) string {
	seen := map[string]bool{}
	var out []string
	for _, m := range strings.Split(h, ",") {
		if m = strings.ToUpper(strings.TrimSpace(m)); m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func (c *Checker) checkWebhook(ctx context.Context, x *simulator.Exchange, where string) {
	req, body, err := httpRequest(&x.Request, "")
	if err != nil {
		c.add(Violation{Key: "webhook", Kind: "webhook", Detail: fmt.Sprint("unreadable delivery: ", err), Where: where})
		return
	}
	var head struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		c.add(Violation{Key: "webhook", Kind: "webhook", Detail: "body is not JSON: " + err.Error(), Where: where})
		return
	}
	key := "webhook " + head.EventType
	c.Counts.Webhooks++
	c.Counts.PerOperation[key]++
	if x.Response == nil {
		c.Counts.Dropped++
	}
	item := c.docs.BusinessClosed.Webhooks[head.EventType]
	if item == nil || item.Post == nil {
		c.add(Violation{Key: key, Kind: "webhook", Detail: "event type not in the document's webhooks", Where: where})
		return
	}
	route := &routers.Route{Spec: c.docs.BusinessClosed, Path: head.EventType, PathItem: item, Method: http.MethodPost, Operation: item.Post}
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: c.webhookOpts}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		c.add(Violation{Key: key, Kind: "webhook", Detail: oneLine(err.Error()), Where: where})
	}
	if got := x.Request.Header.Get("z-event-id"); got != head.EventID {
		c.add(Violation{Key: key, Kind: "webhook", Detail: fmt.Sprintf("z-event-id %q differs from the body's event_id %q", got, head.EventID), Where: where})
	}
	if got := x.Request.Header.Get("z-event-type"); got != head.EventType {
		c.add(Violation{Key: key, Kind: "webhook", Detail: fmt.Sprintf("z-event-type %q differs from the body's event_type %q", got, head.EventType), Where: where})
	}
}

// BusinessOperations lists "METHOD /template" of every business operation
// and "webhook EVENT" of every webhook in the document, sorted.
func (c *Checker) BusinessOperations() []string {
	var out []string
	for template, item := range c.docs.Business.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+template)
		}
	}
	for name := range c.docs.Business.Webhooks {
		out = append(out, "webhook "+name)
	}
	sort.Strings(out)
	return out
}

// ControlOperations lists "METHOD /template" of every control operation.
func (c *Checker) ControlOperations() []string {
	var out []string
	for template, item := range c.docs.Control.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+template)
		}
	}
	sort.Strings(out)
	return out
}

// firstComplaint is the gist of a request validation error.
func firstComplaint(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		err = me[0]
	}
	s := oneLine(err.Error())
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	// unevaluatedProperties: false reports a field the document lacks as
	// a "false schema".
	s = strings.ReplaceAll(s, "false schema Schema: null Value:", "a field the document does not list (closed world); value:")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// checkFaultAnswer checks the answer an injected fault gave on a route no
// document describes: the status the test asked for (400 to 599), the error
// envelope, X-Request-Id.
func (c *Checker) checkFaultAnswer(r *simulator.LoggedMessage, key, where string) {
	if r.Status < 400 || r.Status > 599 {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: fmt.Sprintf("an injected fault answered %d; faults answer 400 to 599", r.Status)})
	}
	if r.Header.Get("X-Request-Id") == "" {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: "an injected fault's answer has no X-Request-Id header"})
	}
	var env struct {
		Type      string `json:"type"`
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(r.Body), &env); err != nil || env.Type == "" || env.Code == "" || env.RequestID != r.Header.Get("X-Request-Id") {
		c.add(Violation{Key: key, Kind: "response", Where: where, Detail: fmt.Sprintf("an injected fault's answer is not the error envelope: %.80q", r.Body)})
	}
}
