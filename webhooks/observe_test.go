package webhooks_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

// resultCounter is a webhooks.Observer counting results.
type resultCounter struct {
	mu  sync.Mutex
	got []webhooks.Result
}

func (c *resultCounter) WebhookVerification(_ context.Context, r webhooks.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, r)
}

// TestObserverSeesEveryResult: each result of a verification (one per
// sentinel error, and success) reaches the Observer once, through Verify,
// a Verifier, ConstructEvent and Handler, and ResultOf names it.
func TestObserverSeesEveryResult(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_obs")
	good := header(testSecret, testNow.Unix(), body)
	tests := []struct {
		name   string
		header string
		secret mwallet.Secret
		want   webhooks.Result
	}{
		{"verified", good, testSecret, webhooks.ResultVerified},
		{"missing header", "", testSecret, webhooks.ResultMissingHeader},
		{"malformed header", "t=abc,v1=x", testSecret, webhooks.ResultMalformedHeader},
		{"signature mismatch", header("whsec_other", testNow.Unix(), body), testSecret, webhooks.ResultSignatureMismatch},
		{"timestamp out of range", header(testSecret, testNow.Unix()-301, body), testSecret, webhooks.ResultTimestampOutOfRange},
		{"no secret", good, "", webhooks.ResultNoSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obs := &resultCounter{}
			opts := []webhooks.Option{webhooks.WithClock(func() time.Time { return testNow }), webhooks.WithObserver(obs)}
			err := webhooks.Verify(body, tt.header, tt.secret, opts...)
			if got := webhooks.ResultOf(err); got != tt.want {
				t.Errorf("ResultOf(%v) = %s, want %s", err, got, tt.want)
			}
			_ = webhooks.NewTestVerifier(tt.secret, opts...).Verify(body, tt.header)
			_, _ = webhooks.ConstructEvent(body, tt.header, tt.secret, opts...)
			req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
			if tt.header != "" {
				req.Header.Set(webhooks.SignatureHeader, tt.header)
			}
			rec := httptest.NewRecorder()
			webhooks.Handler(tt.secret, nil, opts...).ServeHTTP(rec, req)
			if want := map[bool]int{true: 200, false: 400}[tt.want == webhooks.ResultVerified]; rec.Code != want {
				t.Errorf("Handler answered %d, want %d", rec.Code, want)
			}
			want := []webhooks.Result{tt.want, tt.want, tt.want, tt.want}
			if diff := cmp.Diff(want, obs.got); diff != "" {
				t.Errorf("observed results (-want +got):\n%s", diff)
			}
		})
	}
	if got := webhooks.ResultOf(context.Canceled); got != webhooks.ResultError {
		t.Errorf("ResultOf(another error) = %s", got)
	}
}
