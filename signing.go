package mwallet

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sync"
)

// hmacBlock is the block size of SHA-256, the HMAC key block length.
const hmacBlock = 64

// signer computes x-signature for writes: base64 of HMAC-SHA-256 with the
// signing key over five lines,
//
//	METHOD
//	path?query exactly as sent
//	x-timestamp (Unix seconds)
//	x-nonce
//	lowercase hex SHA-256 of the raw body bytes (of "" when there is no body)
//
// It holds the HMAC key blocks (RFC 2104) derived from the signing key once,
// so signing a request hashes the body, the inner block and the outer block
// and allocates nothing but the returned string. A signer never prints its
// key material.
type signer struct {
	ipad, opad [hmacBlock]byte
}

func newSigner(key string) *signer {
	k := []byte(key)
	if len(k) > hmacBlock {
		sum := sha256.Sum256(k)
		k = sum[:]
	}
	s := &signer{}
	for i := 0; i < hmacBlock; i++ {
		var b byte
		if i < len(k) {
			b = k[i]
		}
		s.ipad[i] = b ^ 0x36
		s.opad[i] = b ^ 0x5c
	}
	return s
}

// Format keeps the key blocks out of every fmt verb.
func (*signer) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("signer{[redacted]}")) }

// signBufPool recycles the buffers that hold the inner HMAC message.
var signBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooledSignBuf keeps unusually long paths from pinning large buffers.
const maxPooledSignBuf = 16 << 10

// sign returns the 44-character x-signature of one attempt.
func (s *signer) sign(method, pathQuery, ts, nonce string, body []byte) string {
	bodySum := sha256.Sum256(body)

	bp := signBufPool.Get().(*[]byte)
	buf := append((*bp)[:0], s.ipad[:]...)
	buf = append(buf, method...)
	buf = append(buf, '\n')
	buf = append(buf, pathQuery...)
	buf = append(buf, '\n')
	buf = append(buf, ts...)
	buf = append(buf, '\n')
	buf = append(buf, nonce...)
	buf = append(buf, '\n')
	buf = hex.AppendEncode(buf, bodySum[:])
	inner := sha256.Sum256(buf)
	if cap(buf) <= maxPooledSignBuf {
		*bp = buf[:0]
		signBufPool.Put(bp)
	}

	var outer [hmacBlock + sha256.Size]byte
	copy(outer[:hmacBlock], s.opad[:])
	copy(outer[hmacBlock:], inner[:])
	mac := sha256.Sum256(outer[:])

	var out [44]byte // base64 of 32 bytes
	base64.StdEncoding.Encode(out[:], mac[:])
	return string(out[:])
}
