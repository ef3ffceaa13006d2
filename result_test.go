package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// thing is a result type of the kind the product packages declare: it
// embeds Meta and converts its wire form in UnmarshalJSON.
type thing struct {
	Meta
	ID string
}

func (t *thing) UnmarshalJSON(b []byte) error {
	var w struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.ID == "" {
		return errors.New("thing without id")
	}
	*t = thing{ID: strings.ToUpper(w.ID)}
	return nil
}

func TestCallDecodesAndAttachesTheResponse(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		switch r.URL.Path {
		case "/v1/things/1":
			w.Header().Set("X-Request-Id", "req_1")
			writeTestJSON(w, 201, map[string]any{"id": "thg_1"})
		case "/v1/things/bad":
			writeTestJSON(w, 200, map[string]any{})
		default:
			writeTestJSON(w, 404, errBody("not_found"))
		}
	}
	c := f.client()
	ctx := context.Background()
	got, err := Call[thing](ctx, c, &Request{Method: http.MethodPost, Path: "/v1/things/1", Body: map[string]any{}, Idempotent: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "THG_1" || got.Response == nil || got.Response.StatusCode != 201 || got.Response.RequestID != "req_1" || got.Response.IdempotencyKey == "" {
		t.Errorf("got %+v (response %+v)", got, got.Response)
	}
	// A service error and an undecodable answer return no value.
	if got, err := Call[thing](ctx, c, &Request{Method: http.MethodGet, Path: "/v1/things/2"}); got != nil || CodeOf(err) != CodeNotFound {
		t.Errorf("404: %v, %v", got, err)
	}
	if got, err := Call[thing](ctx, c, &Request{Method: http.MethodGet, Path: "/v1/things/bad"}); got != nil || err == nil || !strings.Contains(err.Error(), "thing without id") {
		t.Errorf("undecodable: %v, %v", got, err)
	}
	// Do sets Meta in any out value that embeds it, and WithResponse still
	// sees the Response on failure.
	var out thing
	var seen *Response
	if _, err := c.Do(ctx, &Request{Method: http.MethodPost, Path: "/v1/things/1", Body: map[string]any{}}, &out, WithResponse(&seen)); err != nil || out.Response == nil || out.Response != seen {
		t.Errorf("Do: %v, Meta %p, WithResponse %p", err, out.Response, seen)
	}
	var missing thing
	seen = nil
	if _, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/v1/things/3"}, &missing, WithResponse(&seen)); err == nil || missing.Response != nil || seen == nil || seen.StatusCode != 404 {
		t.Errorf("failed Do: %v, Meta %+v, WithResponse %+v", err, missing.Response, seen)
	}
}
