package simulator_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/mwallet/mwallet-go/openapi"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestServesOpenAPIDocuments checks that both documents are served byte for
// byte from the binary, as YAML, with a request id.
func TestServesOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	tests := []struct {
		path string
		want []byte
	}{
		{"/_sim/openapi.yaml", openapi.Business()},
		{"/_sim/openapi-sim.yaml", openapi.Control()},
	}
	for _, tt := range tests {
		resp, err := http.Get(sim.URL() + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", tt.path, resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/yaml" {
			t.Errorf("GET %s: Content-Type %q, want application/yaml", tt.path, ct)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("GET %s: no X-Request-Id", tt.path)
		}
		if !bytes.Equal(body, tt.want) {
			t.Errorf("GET %s: body differs from the embedded document", tt.path)
		}
		if !bytes.HasPrefix(body, []byte("openapi: 3.1.")) {
			t.Errorf("GET %s: not an OpenAPI 3.1 document: %.40q", tt.path, body)
		}
	}
}
