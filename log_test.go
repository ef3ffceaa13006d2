package mwallet

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// Runs token exchange, signed writes, retries, errors and re-authentication
// with a debug logger, then scans the log for anything secret.
func TestDebugLogNeverContainsSecrets(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		switch n {
		case 1:
			writeTestJSON(w, 504, errBody("upstream_timeout"))
		case 3:
			writeTestJSON(w, 400, errBody("insufficient_balance"))
		default:
			writeTestJSON(w, 200, map[string]any{"card_number": "4111111111111111"})
		}
	}
	var logs syncBuffer
	for _, hnd := range []slog.Handler{
		slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
	} {
		c := f.client(WithLogger(slog.New(hnd)))
		body := map[string]string{"pin": "PIN-SECRET-123456"}
		var sent []string
		for i := 0; i < 2; i++ {
			resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "/v1/cards/crd_1/pin", Body: body, Idempotent: true, MemberScoped: true, Member: "member-1"}, nil)
			if resp != nil {
				sent = append(sent, resp.IdempotencyKey)
			}
			_ = err
		}
		f.revokeAll()
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
		for _, k := range sent {
			if !strings.Contains(logs.String(), k) {
				t.Errorf("idempotency key %s not logged", k)
			}
		}
	}
	out := logs.String()
	var secrets []string
	secrets = append(secrets, testAPIKey, testSigningKey, "tok-SECRET", "PIN-SECRET", "4111111111111111")
	for _, r := range f.recorded() {
		if s := r.Header.Get("X-Signature"); s != "" {
			secrets = append(secrets, s)
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("log contains %q:\n%s", s, out)
		}
	}
	// The leading spaces keep next_attempt=2 from passing for attempt=2.
	for _, want := range []string{"request_id=req_1", " status=504", " code=upstream_timeout", " attempt=1 ", " attempt=2 ", "next_attempt=2", "mwallet: retrying", "invalid_token", "/v1/cards/crd_1/pin"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q", want)
		}
	}
}
