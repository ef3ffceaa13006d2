package control

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefusalMessageAndAnswer: the message names the argument, the value
// and the domain in the form its kind of domain takes, and the answer is
// not_found for an unknown id, invalid_request otherwise.
func TestRefusalMessageAndAnswer(t *testing.T) {
	tests := []struct {
		r      Refusal
		msg    string
		code   string
		status int
	}{
		{r: Refusal{Kind: "card", Name: "crd_1", NotFound: true, Field: "path parameter id"},
			msg: `path parameter id: card "crd_1" not found`, code: "not_found", status: 404},
		{r: Refusal{Kind: "form factor", Name: "plastic", Valid: []string{"physical", "virtual"}, Field: "form_factor"},
			msg: `form_factor: unknown form factor "plastic": want one of physical, virtual`, code: "invalid_request", status: 400},
		{r: Refusal{Kind: "ISO 4217 currency code", Name: "QQ", Want: "three letters"},
			msg: `"QQ" is not an ISO 4217 currency code: want three letters`, code: "invalid_request", status: 400},
		{r: Refusal{Kind: "HTTP method", Name: "12", Want: "a method"},
			msg: `12 is not an HTTP method: want a method`, code: "invalid_request", status: 400},
		{r: Refusal{Kind: "URL", Name: "x", Want: "an http or https URL", Field: "url"},
			msg: `url: "x" is not a URL: want an http or https URL`, code: "invalid_request", status: 400},
		{r: Refusal{Kind: "event type", Name: "x"}, msg: `unknown event type "x"`, code: "invalid_request", status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			ae := tt.r.Answer()
			got := []any{tt.r.Message(), ae.Code, ae.Status, ae.Message}
			if diff := cmp.Diff([]any{tt.msg, tt.code, tt.status, tt.msg}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
