package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// Sign computes the contract's x-signature: base64 of HMAC-SHA-256 with the
// signing key over METHOD, path with query as sent, timestamp, nonce and
// the hex SHA-256 of the body, joined by newlines.
func Sign(signingKey, method, target, ts, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write([]byte(method))
	m.Write([]byte{'\n'})
	m.Write([]byte(target))
	m.Write([]byte{'\n'})
	m.Write([]byte(ts))
	m.Write([]byte{'\n'})
	m.Write([]byte(nonce))
	m.Write([]byte{'\n'})
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	m.Write(hx[:])
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// RequestTarget is the path with its query exactly as the client sent it.
func RequestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// RemoteIP is the caller's address from the connection.
func RemoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// AllowEntryMatches reports whether one entry of an API key's IP allowlist
// admits ip. An entry is a single IPv4 address, a wildcard prefix (a.*,
// a.b.* or a.b.c.*) or an IPv4 CIDR with prefix length /8, /16 or /24; any
// other entry never matches.
func AllowEntryMatches(entry string, ip netip.Addr) bool {
	if base, bits, ok := strings.Cut(entry, "/"); ok {
		if bits != "8" && bits != "16" && bits != "24" {
			return false
		}
		a, err := netip.ParseAddr(base)
		if err != nil || !a.Is4() || a.Zone() != "" {
			return false
		}
		n, _ := strconv.Atoi(bits)
		p, err := a.Prefix(n)
		return err == nil && p.Contains(ip)
	}
	if prefix, ok := strings.CutSuffix(entry, ".*"); ok {
		parts := strings.Split(prefix, ".")
		if len(parts) < 1 || len(parts) > 3 {
			return false
		}
		oct := ip.As4()
		for i, p := range parts {
			if !api.AllDigits(p) || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
				return false
			}
			v, _ := strconv.Atoi(p)
			if v > 255 || byte(v) != oct[i] {
				return false
			}
		}
		return true
	}
	a, err := netip.ParseAddr(entry)
	return err == nil && a.Is4() && a == ip
}
