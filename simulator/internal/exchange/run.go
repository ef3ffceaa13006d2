package exchange

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
)

// MaxBodyBytes caps request bodies; larger ones get invalid_request.
const MaxBodyBytes = 1 << 20

// Serve runs the gateway rules for e, then its handler. The order of the
// checks is:
//
//	request id, faults, token, IP allowlist, environment, merchant status,
//	scope, body size, signature, member, precheck, idempotency, handler
//
// (from the token to the write quota, authorize, auth.go). Everything before
// the idempotency step answers without creating an idempotency record, so
// such a rejection is never replayed.
func (p *Pipeline) Serve(w http.ResponseWriter, r *http.Request, e *api.Endpoint) {
	body, rerr := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	x := p.Begin(w, r)
	defer x.Tx.Release()
	if x.PreFault() {
		return
	}
	resp := p.run(x, e, body, rerr != nil || len(body) > MaxBodyBytes)
	p.host.RunDue(x.Tx)
	x.Finish(x.AfterFault(resp))
}

// run applies the gateway rules for e to the request of x, in the order
// Serve lists, and runs the handler if they pass.
func (p *Pipeline) run(x *Exchange, e *api.Endpoint, body []byte, bodyTooLarge bool) gateway.Response {
	r := x.R
	now := p.host.Now()
	fail := func(ae *api.Error) gateway.Response { return gateway.ErrorResponse(ae, x.ID) }
	if ae := p.authorize(x, e, body, bodyTooLarge, now); ae != nil {
		return fail(ae)
	}
	c := &api.Request{Tx: x.Tx, Req: r, Now: now, RequestID: x.ID, Body: body, Header: http.Header{}}
	c.StepUp = strings.TrimSpace(r.Header.Get("X-Step-Up"))
	if e.Member {
		m, ae := p.ResolveMember(x.Tx, x.Rec.Member)
		if ae != nil {
			return fail(ae)
		}
		c.Member = m
	}
	if e.Precheck != nil {
		if err := e.Precheck(c); err != nil {
			return fail(api.AsError(err))
		}
	}
	if !e.Idempotent {
		x.Delay()
		c.Now = p.host.Now()
		return callHandler(c, e)
	}

	c.IdemKey = x.Rec.IdempotencyKey
	if c.IdemKey == "" {
		return fail(api.NewErr("idempotency_key_required", "x-idempotency-key is required"))
	}
	if !api.UUIDShaped(c.IdemKey) {
		return fail(api.NewErr("idempotency_key_invalid", "x-idempotency-key must be UUID-shaped (8-4-4-4-12 hex)"))
	}
	st := p.st
	recKey := idempotency.Key(p.host.MerchantID(x.Tx), c.IdemKey)
	endpointID := r.Method + " " + r.URL.EscapedPath()
	hash := st.BodyDigest(body)
	rec, ae := Check(x.Tx, &st.Idem, recKey, endpointID, hash, now, st.Caps.Get(x.Tx).IdempotencyKeys)
	if ae != nil {
		return fail(ae)
	}
	if rec != nil {
		if e.OwnReplay && rec.Status < 300 {
			c.Replay = true
			c.ReplayBody = rec.KeptBody()
			resp := callHandler(c, e)
			resp.Replay, resp.ReplayOf = true, rec.RequestID
			return resp
		}
		return gateway.Response{Status: rec.Status, Header: rec.KeptHeader(), Body: rec.KeptBody(), Code: rec.Code, Replay: true, ReplayOf: rec.RequestID}
	}
	started := st.Idem.Start(x.Tx, recKey, endpointID, hash, now)
	x.Delay()
	c.Now = p.host.Now()
	resp := callHandler(c, e)
	st.Idem.End(x.Tx, recKey, started, Answer(resp), x.ID)
	return resp
}

// callHandler runs the endpoint's handler, turning its result (or a panic)
// into a response.
func callHandler(c *api.Request, e *api.Endpoint) (resp gateway.Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = gateway.ErrorResponse(api.NewErr("api_error", fmt.Sprintf("simulator fault in %s %s: %v", e.Method, e.Pattern, p)), c.RequestID)
		}
	}()
	// The handler is the request's step: when it refuses (an error, or a
	// panic) every write it made is undone (internal/kernel, step.go).
	var status int
	var out any
	err := c.Tx.Step(e.Method+" "+e.Pattern, func() error {
		var err error
		status, out, err = e.Handle(c)
		return err
	})
	if err != nil {
		resp = gateway.ErrorResponse(api.AsError(err), c.RequestID)
	} else {
		resp = gateway.JSONResponse(status, out)
		resp.Instead = c.AnswerInstead
	}
	if len(c.Header) > 0 {
		if resp.Header == nil {
			resp.Header = http.Header{}
		}
		for k, v := range c.Header {
			resp.Header[k] = v
		}
	}
	return resp
}
