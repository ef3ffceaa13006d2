package tlsserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServed: Served starts the server asked for, answers on its URL to its
// own client (HTTPS with a certificate, plain HTTP without), lets OPTIONS *
// reach the handler, and after Close answers no more; the zero value serves
// nothing.
func TestServed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		tls, http2 bool
		scheme     string
		want       []string
		cert       bool
	}{
		{name: "HTTP", scheme: "http://", want: []string{"GET / HTTP/1.1", "OPTIONS * HTTP/1.1"}},
		{name: "HTTPS", tls: true, scheme: "https://", want: []string{"GET / HTTP/1.1", "OPTIONS * HTTP/1.1"}, cert: true},
		{name: "HTTP/2", tls: true, http2: true, scheme: "https://", want: []string{"GET / HTTP/2.0", "OPTIONS * HTTP/2.0"}, cert: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s Served
			err := s.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, r.Method+" "+r.RequestURI+" "+r.Proto)
			}), tc.tls, tc.http2)
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			if !strings.HasPrefix(s.URL(), tc.scheme) {
				t.Errorf("URL %q, want the scheme %s", s.URL(), tc.scheme)
			}
			if got := s.Certificate() != nil; got != tc.cert {
				t.Errorf("has a certificate: %v, want %v", got, tc.cert)
			}
			var got []string
			for _, m := range []string{http.MethodGet, http.MethodOptions} {
				req, _ := http.NewRequest(m, s.URL()+"/", nil)
				if m == http.MethodOptions {
					req.URL.Path, req.URL.Opaque = "", "*"
				}
				resp, err := s.Client().Do(req)
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
			client := s.Client()
			s.Close()
			if _, err := client.Get(s.URL() + "/"); err == nil {
				t.Error("a closed server answered")
			}
		})
	}
}

// TestServedNone: the zero value has no URL, client or certificate, and
// closes without effect.
func TestServedNone(t *testing.T) {
	t.Parallel()
	var s Served
	if s.URL() != "" || s.Client() != nil || s.Certificate() != nil {
		t.Errorf("zero Served: URL %q, client %v, certificate %v", s.URL(), s.Client(), s.Certificate())
	}
	s.Close()
}
