package exchange

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// TestServeToken: the token exchange refuses unknown or wrong credentials
// with one answer, a key of another environment, and issues a token for
// TokenTTL that the host keeps and the journal records under the client id.
func TestServeToken(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		client, secret   string
		env              string
		wantCode, wantID string
	}{
		{"issued", "client_1", "secret", "sandbox", "", "client_1"},
		{"wrong secret", "client_1", "nope", "sandbox", "invalid_credentials", "client_1"},
		{"unknown client", "client_2", "secret", "sandbox", "invalid_credentials", ""},
		{"other environment", "client_1", "secret", gateway.Production, "environment_mismatch", "client_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHost(now)
			h.env = tt.env
			p, st, k := newPipeline(h)
			r := httptest.NewRequest("POST", "/v1/connect/token", nil)
			r.Header.Set("X-Client-Id", tt.client)
			r.Header.Set("X-Api-Key", tt.secret)
			w := httptest.NewRecorder()
			p.ServeToken(w, r)
			var got struct {
				Code      string `json:"code"`
				AuthToken string `json:"auth_token"`
				ExpiredAt int64  `json:"expired_at"`
			}
			_ = json.Unmarshal(w.Body.Bytes(), &got)
			if got.Code != tt.wantCode {
				t.Fatalf("answered %s, want code %q", w.Body, tt.wantCode)
			}
			rows := journal(k, st)
			if len(rows) != 1 || rows[0].ClientID != tt.wantID {
				t.Errorf("journal %+v, want one row of %q", rows, tt.wantID)
			}
			if tt.wantCode != "" {
				return
			}
			want := gateway.Token{Value: got.AuthToken, ClientID: "client_1", Env: "sandbox", ExpiresAt: now.Add(TokenTTL)}
			if diff := cmp.Diff(want, h.tokens[got.AuthToken]); diff != "" {
				t.Errorf("kept token (-want +got):\n%s", diff)
			}
			if got.ExpiredAt != now.Add(TokenTTL).Unix() {
				t.Errorf("expired_at %d", got.ExpiredAt)
			}
		})
	}
}
