package tlsserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServe: the server answers over HTTPS to its own client, with the
// protocol asked for, and OPTIONS * reaches the handler; after Close it
// answers no more.
func TestServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		http2 bool
		want  []string
	}{
		{name: "HTTP/1.1", want: []string{"GET / HTTP/1.1", "OPTIONS * HTTP/1.1"}},
		{name: "HTTP/2", http2: true, want: []string{"GET / HTTP/2.0", "OPTIONS * HTTP/2.0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, r.Method+" "+r.RequestURI+" "+r.Proto)
			}), tc.http2)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			var got []string
			for _, m := range []string{http.MethodGet, http.MethodOptions} {
				req, _ := http.NewRequest(m, s.URL+"/", nil)
				if m == http.MethodOptions {
					req.URL.Path, req.URL.Opaque = "", "*"
				}
				resp, err := s.Client.Do(req)
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got = append(got, string(b))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if s.Cert.Leaf == nil {
				t.Error("the certificate has no leaf")
			}
			s.Close()
			if _, err := s.Client.Get(s.URL + "/"); err == nil {
				t.Error("a closed server answered")
			}
		})
	}
}
