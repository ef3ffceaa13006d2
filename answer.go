package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The answer of a call, once the service answered it with success (a 2xx,
// or the replay of one): the client decodes the body into the call's out
// value, then lets out finish reading it (AnswerReader), inside the call.
// Whatever fails from there on (a body that is not the JSON the result
// reads, a body over MaxResponseBytes, an amount beyond its ledger_scale or
// beyond the asset catalogue's) fails after the call ran, and is an
// *AnswerError, decided here and nowhere else:
//
//   - it says the call ran (Executed for a write) and carries the call's
//     idempotency key, request id, status and replay flag;
//   - it is never a refusal before sending: no *ParamError (ErrInvalidParam,
//     "nothing was sent"), no *TransportError (ErrOutcomeUnknown) and no
//     *Error of another call is in its chain; their text stays, and their
//     causes (money.ErrPrecision, a context's error) stay in the chain;
//   - the token exchange is the one exception: its answer is not the
//     caller's write, which it precedes (its error says the write was not
//     sent), so an unreadable token is a plain error.

// ErrAnswerUnreadable matches, with errors.Is, the error of a call that the
// service answered with success (a 2xx, or the replay of one) but whose
// answer the SDK could not read as the method's result: an *AnswerError.
// The call ran: a write executed. Do not send it again with a new key.
var ErrAnswerUnreadable = errors.New("mwallet: answer unreadable")

// AnswerError reports a call the service answered with success (a 2xx, or
// the replay of one) whose answer could not be read as the method's result:
// the body is not the JSON the result reads or is larger than
// MaxResponseBytes, an amount in it does not fit its asset's ledger_scale,
// or the result's own reading failed (AnswerReader: a QR payment order's
// amounts against the asset catalogue). errors.Is(err, ErrAnswerUnreadable)
// matches it; errors.Is(err, ErrOutcomeUnknown) and errors.Is(err,
// ErrInvalidParam) never do.
//
// The outcome is known: the call ran. A write (Executed) executed once,
// under IdempotencyKey; sending it again with a new key would execute it
// twice. Reconcile it instead: read the object it made (its id is in Body),
// wait for its event, or resend it with the same IdempotencyKey
// (WithIdempotencyKey), which replays the stored answer without executing
// it again (and fails the same way while the cause lasts). Quote RequestID
// to support.
type AnswerError struct {
	// Method and Path identify the call (the escaped path, without its
	// query).
	Method, Path string
	// StatusCode is the status of the answer (a 2xx).
	StatusCode int
	// RequestID is the answer's X-Request-Id.
	RequestID string
	// IdempotencyKey is the key the call carried ("" when none).
	IdempotencyKey string
	// Replayed is true when the answer was the stored result of an earlier
	// request with the same key (X-Idempotent-Replay: true).
	Replayed bool
	// Executed is true for a write (any method but GET and HEAD): the
	// service executed it. It is false for a read, which changes nothing.
	Executed bool
	// Body is the answer's body as received, for reconciliation (the id of
	// the object made is in it). It is nil when the body was over
	// MaxResponseBytes, and for the endpoints whose request or answer
	// carries a secret (the token exchange, a card's secure session, a KYC
	// link, a PIN or CVV) and for endpoints the SDK does not list: those
	// bodies are never copied out of the call.
	Body []byte
	// Err is what failed. The SDK's own error kinds that describe a
	// refusal before sending or another call (a *ParamError of a parse by
	// the catalogue, the catalogue read's own error) are kept as text only.
	Err error
}

// Error says that the call ran, with its key, and what could not be read.
func (e *AnswerError) Error() string {
	var b strings.Builder
	b.WriteString("mwallet: ")
	b.WriteString(e.Method + " " + e.Path + ": ")
	if e.Executed {
		b.WriteString("executed")
	} else {
		b.WriteString("answered")
	}
	b.WriteString(" (HTTP " + strconv.Itoa(e.StatusCode))
	if e.Replayed {
		b.WriteString(", replayed")
	}
	if e.RequestID != "" {
		b.WriteString(", request_id " + e.RequestID)
	}
	if e.IdempotencyKey != "" {
		b.WriteString(", idempotency key " + e.IdempotencyKey)
	}
	b.WriteString("), but its answer could not be read")
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *AnswerError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrAnswerUnreadable) match every *AnswerError.
func (e *AnswerError) Is(target error) bool { return target == ErrAnswerUnreadable }

// AnswerReader is implemented by a result type that needs the client to
// finish reading an answer once its JSON is decoded: qrpay.Order reads its
// amounts at the asset's ledger_scale from the client's asset catalogue.
// Client.Do calls ReadAnswer on its out value (and on each item of a Page)
// after decoding a 2xx body, inside the call, whatever made the call: a
// product method, Call, ResumeAs, Resume or your own Do. An error it
// returns is the call's, as an *AnswerError that says the call ran and
// carries its key. Reading a result after the call returned would lose
// that: do it here.
type AnswerReader interface {
	ReadAnswer(ctx context.Context, c *Client) error
}

// itemsReader is implemented by Page: ReadAnswer of each item.
type itemsReader interface {
	readItems(ctx context.Context, c *Client) error
}

// readAnswer decodes the body of a 2xx answer into out and lets out finish
// reading it; bodyErr is the error of reading the body itself (over
// MaxResponseBytes), nil when it was read whole.
func (a *attempt) readAnswer(ctx context.Context, meta *Response, out any, bodyErr error) error {
	err := bodyErr
	if err == nil && out != nil && len(a.body) > 0 {
		if derr := json.Unmarshal(a.body, out); derr != nil {
			err = fmt.Errorf("decoding the body: %w", derr)
		}
	}
	if err == nil && out != nil {
		switch r := out.(type) {
		case AnswerReader:
			err = r.ReadAnswer(ctx, a.c)
		case itemsReader:
			err = r.readItems(ctx, a.c)
		}
	}
	if err == nil {
		return nil
	}
	sp := a.spec
	e := &AnswerError{
		Method: sp.method, Path: sp.path, StatusCode: a.status, IdempotencyKey: sp.idemKey,
		Executed: sp.method != http.MethodGet && sp.method != http.MethodHead, Err: answerCause(err),
	}
	if meta != nil {
		e.RequestID, e.Replayed = meta.RequestID, meta.Replayed
	}
	if sp.exchange {
		// The token exchange precedes the caller's write, which was not
		// sent: its unreadable answer is not the write's.
		return fmt.Errorf("mwallet: %s %s: HTTP %d (request_id %s): %w", sp.method, sp.path, e.StatusCode, e.RequestID, err)
	}
	if bodyErr == nil && keepsAnswerBody(sp.method, sp.path) {
		e.Body = append([]byte(nil), a.body...)
	}
	return e
}

// keepsAnswerBody reports whether an *AnswerError may carry the answer's
// body: the endpoint is in the route table and neither its request nor its
// answer carries a secret.
func keepsAnswerBody(method, path string) bool {
	r := listedRoute(method, path)
	return r != nil && !r.secret
}

// answerCause is err as the cause of an *AnswerError: every *ParamError,
// *TransportError, *Error and *AnswerError in its chain (a refusal before
// sending, or another call such as the catalogue read) is replaced by its
// text, so that the chain matches neither ErrInvalidParam nor
// ErrOutcomeUnknown nor another call's code; a *ParamError's text no
// longer says the input was refused before sending. What they wrap (a
// *ParamError's money.ErrPrecision, a *TransportError's context error)
// stays in the chain, and so does every other error.
func answerCause(err error) error {
	if !hasCallKind(err) {
		return err
	}
	return &answerText{text: answerTextOf(err), errs: cleanParts(err)}
}

// isCallKind reports the SDK's error kinds that answerCause replaces.
func isCallKind(err error) bool {
	switch err.(type) {
	case *ParamError, *TransportError, *Error, *AnswerError, *markedError, *keyedError:
		return true
	}
	return false
}

// hasCallKind reports whether err's chain holds one of them.
func hasCallKind(err error) bool {
	if err == nil {
		return false
	}
	if isCallKind(err) {
		return true
	}
	for _, c := range children(err) {
		if hasCallKind(c) {
			return true
		}
	}
	return false
}

// children returns what err wraps.
func children(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if c := u.Unwrap(); c != nil {
			return []error{c}
		}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// cleanParts returns the largest parts of err's chain that hold no call
// kind: what a call kind wraps (but an *Error, which is another call's
// answer) and the wrapped errors of any error above one.
func cleanParts(err error) []error {
	if err == nil {
		return nil
	}
	if !hasCallKind(err) {
		return []error{err}
	}
	var wrapped []error
	switch e := err.(type) {
	case *Error:
		return nil
	case *ParamError:
		wrapped = []error{e.Err}
	case *TransportError:
		wrapped = []error{e.Err}
	case *AnswerError:
		wrapped = []error{e.Err}
	case *markedError:
		wrapped = []error{e.err}
	case *keyedError:
		wrapped = []error{e.err}
	default:
		wrapped = children(err)
	}
	var out []error
	for _, c := range wrapped {
		out = append(out, cleanParts(c)...)
	}
	return out
}

// answerTextOf is err's text with the text of every *ParamError in its
// chain replaced by what it says of the answer.
func answerTextOf(err error) string {
	s := err.Error()
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if p, ok := e.(*ParamError); ok {
			s = strings.ReplaceAll(s, p.Error(), p.Param+": "+p.Reason)
		}
		switch m := e.(type) {
		case *markedError:
			walk(m.err)
			return
		case *keyedError:
			walk(m.err)
			return
		}
		for _, c := range children(e) {
			walk(c)
		}
	}
	walk(err)
	return s
}

// answerText is the cause of an *AnswerError: a text, and the errors of
// the chain it keeps.
type answerText struct {
	text string
	errs []error
}

func (t *answerText) Error() string   { return t.text }
func (t *answerText) Unwrap() []error { return t.errs }
