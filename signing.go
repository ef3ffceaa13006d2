package mwallet

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"github.com/google/uuid"
)

// sign computes x-signature: base64 HMAC-SHA-256 with the signing key over
// METHOD, path with query, timestamp, nonce and the hex SHA-256 of the body,
// joined by newlines.
func sign(key, method, pathQuery, ts, nonce string, body []byte) string {
	h := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(method + "\n" + pathQuery + "\n" + ts + "\n" + nonce + "\n" + hex.EncodeToString(h[:])))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func newUUID() string { return uuid.NewString() }
