package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// Header names of a webhook delivery.
const (
	// SignatureHeader carries t=<unix seconds>,v1=<base64>.
	SignatureHeader = "z-signature"
	// EventIDHeader carries the event_id (evt_ prefix).
	EventIDHeader = "z-event-id"
	// EventTypeHeader carries the event_type.
	EventTypeHeader = "z-event-type"
)

// DefaultTolerance is the largest accepted distance, in either direction,
// between the signature timestamp and the receiver's clock.
const DefaultTolerance = 300 * time.Second

// Sentinel errors of Verify. Every error Verify returns is a *VerifyError
// wrapping exactly one of them, so test with errors.Is.
var (
	// ErrMissingHeader: the z-signature header is absent or blank.
	ErrMissingHeader = errors.New("webhooks: missing z-signature header")
	// ErrMalformedHeader: the header is not t=<unix seconds>,v1=<base64>.
	ErrMalformedHeader = errors.New("webhooks: malformed z-signature header")
	// ErrTimestampOutOfRange: the signature is authentic but its timestamp
	// is farther than the tolerance from the receiver's clock (stale or in
	// the future). A stale one may be a replay.
	ErrTimestampOutOfRange = errors.New("webhooks: signature timestamp out of range")
	// ErrSignatureMismatch: no v1 value matches the body under any secret.
	ErrSignatureMismatch = errors.New("webhooks: signature mismatch")
	// ErrNoSecret: Verify was given no non-empty secret.
	ErrNoSecret = errors.New("webhooks: no webhook secret configured")
)

// VerifyError is the error of a failed verification. It carries detail that
// is safe to log: never a secret, a signature value or the body.
type VerifyError struct {
	// Err is the sentinel (ErrMissingHeader, ErrMalformedHeader,
	// ErrTimestampOutOfRange, ErrSignatureMismatch or ErrNoSecret).
	Err error
	// Detail explains the failure in words.
	Detail string
	// Timestamp is the header's t, when it could be read.
	Timestamp time.Time
	// Now is the receiver's clock at verification, for timestamp failures.
	Now time.Time
}

// Error describes the failure.
func (e *VerifyError) Error() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Detail
}

// Unwrap returns the sentinel.
func (e *VerifyError) Unwrap() error { return e.Err }

// Option configures Verify, ConstructEvent and Handler. Options that do not concern a function are ignored by it.
type Option interface {
	apply(*config)
}

// optionFunc is an Option that does not concern verification.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// The options read by verification are concrete types, so Verify can read
// them without moving its configuration to the heap.
type (
	toleranceOption time.Duration
	clockOption     func() time.Time
	secretsOption   []mwallet.Secret
	observerOption  struct{ o Observer }
)

func (o observerOption) apply(c *config) { c.observer = o.o }

func (o toleranceOption) apply(c *config) {
	if o > 0 {
		c.tolerance = time.Duration(o)
	}
}

func (o clockOption) apply(c *config) {
	if o != nil {
		c.now = o
	}
}

func (o secretsOption) apply(c *config) { c.secrets = append(c.secrets, o...) }

type config struct {
	tolerance time.Duration
	now       func() time.Time
	secrets   []mwallet.Secret
	maxBody   int64
	deduper   Deduper
	noDedupe  bool
	lease     time.Duration
	logger    *slog.Logger
	observer  Observer
}

func newConfig(opts []Option) config {
	c := config{tolerance: DefaultTolerance, now: time.Now, maxBody: DefaultMaxBodyBytes, lease: DefaultLease}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

// verifyConfig reads only the verification options, without heap
// allocation.
type verifyConfig struct {
	tolerance time.Duration
	now       func() time.Time
	secrets   []mwallet.Secret // extra secrets besides the main one
	nsecrets  int              // number of WithSecrets options seen
	observer  Observer
}

func newVerifyConfig(opts []Option) verifyConfig {
	c := verifyConfig{tolerance: DefaultTolerance, now: time.Now}
	for _, o := range opts {
		switch o := o.(type) {
		case toleranceOption:
			if o > 0 {
				c.tolerance = time.Duration(o)
			}
		case clockOption:
			if o != nil {
				c.now = o
			}
		case secretsOption:
			if c.nsecrets == 0 {
				c.secrets = o
			} else {
				c.secrets = append(append([]mwallet.Secret(nil), c.secrets...), o...)
			}
			c.nsecrets++
		case observerOption:
			c.observer = o.o
		}
	}
	return c
}

// WithTolerance sets the accepted distance between the signature timestamp
// and the clock, in both directions (default 300 seconds). A non-positive d
// keeps the default: the timestamp check cannot be switched off.
func WithTolerance(d time.Duration) Option { return toleranceOption(d) }

// WithClock sets the clock the timestamp is compared with (default
// time.Now). Tests and simulators pass their own clock.
func WithClock(now func() time.Time) Option { return clockOption(now) }

// WithSecrets adds secrets that are also accepted, for example the new
// secret while you roll your configuration over to it. A signature that
// matches any of them verifies.
func WithSecrets(more ...mwallet.Secret) Option { return secretsOption(more) }

// maxSignatureLen bounds one v1 value copied to the stack; a valid value is
// 44 characters (base64 of 32 bytes with padding).
const maxSignatureLen = 64

// Verify checks that header (the z-signature value) signs payload (the raw
// request body, exactly as received) under secret or one of the WithSecrets
// secrets, and that its timestamp is within the tolerance of the clock.
//
// The header is t=<unix seconds>,v1=<base64>; several v1 values may be
// present (the service signing with an old and a new secret during
// rotation) and any one matching suffices. Unknown schemes are ignored. The
// comparison is constant time. Errors are *VerifyError wrapping
// ErrMissingHeader, ErrMalformedHeader, ErrSignatureMismatch,
// ErrTimestampOutOfRange or ErrNoSecret. The signature is checked before the
// timestamp, so ErrTimestampOutOfRange always means an authentic but stale
// (or future) delivery.
//
// Verify neither copies nor retains payload. It keeps the keyed HMAC state
// of up to 16 distinct secrets in process memory (the secrets your process
// already holds), so repeated verifications skip the key setup and
// allocate nothing on success; further secrets are keyed on each call.
func Verify(payload []byte, header string, secret mwallet.Secret, opts ...Option) error {
	c := newVerifyConfig(opts)
	err := verify(&c, payload, header, secret)
	if c.observer != nil {
		c.observer.WebhookVerification(context.Background(), ResultOf(err))
	}
	return err
}

// verify is Verify without the Observer.
func verify(c *verifyConfig, payload []byte, header string, secret mwallet.Secret) error {
	var h parsedHeader
	if err := h.parse(header); err != nil {
		return err
	}
	matched, anySecret := false, false
	for i := 0; i <= len(c.secrets) && !matched; i++ {
		sec := secret
		if i > 0 {
			sec = c.secrets[i-1]
		}
		if sec == "" {
			continue
		}
		anySecret = true
		if pool := cachedPool(sec); pool != nil {
			st := pool.Get().(*macState)
			st.mac.Reset()
			matched = h.check(st.mac, payload, st.buf[:])
			pool.Put(st)
			continue
		}
		var buf [64]byte
		matched = h.check(hmac.New(sha256.New, []byte(sec)), payload, buf[:])
	}
	return h.finish(matched, anySecret, c.now, c.tolerance)
}

// maxCachedSecrets bounds the keyed states Verify keeps.
const maxCachedSecrets = 16

var (
	macCache   sync.Map // mwallet.Secret -> *sync.Pool of *macState
	macCacheMu sync.Mutex
	macCacheN  int
)

// cachedPool returns the pool of keyed HMAC states of sec, creating it while
// fewer than maxCachedSecrets exist; nil beyond.
func cachedPool(sec mwallet.Secret) *sync.Pool {
	if p, ok := macCache.Load(sec); ok {
		return p.(*sync.Pool)
	}
	macCacheMu.Lock()
	defer macCacheMu.Unlock()
	if p, ok := macCache.Load(sec); ok {
		return p.(*sync.Pool)
	}
	if macCacheN >= maxCachedSecrets {
		return nil
	}
	macCacheN++
	p := newMACPool(sec)
	macCache.Store(sec, p)
	return p
}

func newMACPool(sec mwallet.Secret) *sync.Pool {
	key := []byte(sec)
	return &sync.Pool{New: func() any { return &macState{mac: hmac.New(sha256.New, key)} }}
}

// verifier verifies deliveries with fixed secrets and options (Handler's).
// It keeps the keyed HMAC state of each secret in a pool, so a verification
// costs about one hash of the body and allocates nothing on success. It is
// safe for concurrent use.
type verifier struct {
	secrets   []mwallet.Secret
	pools     []*sync.Pool // of *macState, one per secret
	tolerance time.Duration
	now       func() time.Time
	observer  Observer
}

type macState struct {
	mac hash.Hash
	buf [64]byte
}

// newVerifier returns a verifier for secret and the WithSecrets secrets,
// with the WithTolerance and WithClock options. Empty secrets are ignored.
func newVerifier(secret mwallet.Secret, opts ...Option) *verifier {
	c := newConfig(opts)
	v := &verifier{tolerance: c.tolerance, now: c.now, observer: c.observer}
	for _, s := range append([]mwallet.Secret{secret}, c.secrets...) {
		if s != "" {
			v.secrets = append(v.secrets, s)
		}
	}
	for _, s := range v.secrets {
		v.pools = append(v.pools, newMACPool(s))
	}
	return v
}

// String describes the verifier without its secrets.
func (v *verifier) String() string {
	return fmt.Sprintf("webhooks.verifier{secrets:%d [redacted], tolerance:%s}", len(v.secrets), v.tolerance)
}

// GoString describes the verifier without its secrets.
func (v *verifier) GoString() string { return v.String() }

// Verify checks header over payload like the package-level Verify.
func (v *verifier) Verify(payload []byte, header string) error {
	err := v.verify(payload, header)
	if v.observer != nil {
		v.observer.WebhookVerification(context.Background(), ResultOf(err))
	}
	return err
}

func (v *verifier) verify(payload []byte, header string) error {
	var h parsedHeader
	if err := h.parse(header); err != nil {
		return err
	}
	matched := false
	for i := 0; i < len(v.pools) && !matched; i++ {
		st := v.pools[i].Get().(*macState)
		st.mac.Reset()
		matched = h.check(st.mac, payload, st.buf[:])
		v.pools[i].Put(st)
	}
	return h.finish(matched, len(v.pools) > 0, v.now, v.tolerance)
}

// parsedHeader is a z-signature header read without heap allocation for up
// to four v1 values.
type parsedHeader struct {
	ts    int64
	sigs  [4][32]byte
	nsig  int
	extra [][32]byte // beyond four v1 values (rare)
}

func (h *parsedHeader) parse(header string) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return &VerifyError{Err: ErrMissingHeader}
	}
	haveTS, badSigs := false, 0
	for rest := header; rest != ""; {
		var item string
		item, rest, _ = strings.Cut(rest, ",")
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return &VerifyError{Err: ErrMalformedHeader, Detail: "item without '='"}
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "t":
			if haveTS {
				return &VerifyError{Err: ErrMalformedHeader, Detail: "more than one t"}
			}
			n, ok := parseUnix(v)
			if !ok {
				return &VerifyError{Err: ErrMalformedHeader, Detail: "t is not a Unix time in seconds"}
			}
			h.ts, haveTS = n, true
		case "v1":
			var d [32]byte
			if !decodeSig(&d, v) {
				badSigs++
				continue
			}
			if h.nsig < len(h.sigs) {
				h.sigs[h.nsig] = d
			} else {
				h.extra = append(h.extra, d)
			}
			h.nsig++
		}
	}
	if !haveTS {
		return &VerifyError{Err: ErrMalformedHeader, Detail: "no t= item"}
	}
	if h.nsig == 0 {
		if badSigs > 0 {
			return &VerifyError{Err: ErrMalformedHeader, Detail: "no v1 value is base64 of 32 bytes", Timestamp: time.Unix(h.ts, 0).UTC()}
		}
		return &VerifyError{Err: ErrMalformedHeader, Detail: "no v1= item", Timestamp: time.Unix(h.ts, 0).UTC()}
	}
	return nil
}

// check computes HMAC(t "." payload) with mac (keyed and reset) and compares
// it in constant time with every v1 value. buf is scratch space of at least
// 32 bytes.
func (h *parsedHeader) check(mac hash.Hash, payload, buf []byte) bool {
	tb := strconv.AppendInt(buf[:0], h.ts, 10)
	tb = append(tb, '.')
	mac.Write(tb)
	mac.Write(payload)
	got := mac.Sum(buf[:0])
	matched := false
	for j := 0; j < h.nsig; j++ {
		var want []byte
		if j < len(h.sigs) {
			want = h.sigs[j][:]
		} else {
			want = h.extra[j-len(h.sigs)][:]
		}
		if hmac.Equal(got, want) {
			matched = true
		}
	}
	return matched
}

// finish turns the outcome of the signature check and the timestamp into
// the result of a verification.
func (h *parsedHeader) finish(matched, anySecret bool, now func() time.Time, tol time.Duration) error {
	if !anySecret {
		return &VerifyError{Err: ErrNoSecret}
	}
	signedAt := time.Unix(h.ts, 0).UTC()
	if !matched {
		return &VerifyError{Err: ErrSignatureMismatch, Detail: fmt.Sprintf("%d v1 value(s) checked", h.nsig), Timestamp: signedAt}
	}
	t := now()
	if tol <= 0 {
		tol = DefaultTolerance
	}
	if d := t.Sub(signedAt); d > tol || d < -tol {
		dir := "stale"
		if d < 0 {
			dir, d = "in the future", -d
		}
		return &VerifyError{
			Err:       ErrTimestampOutOfRange,
			Detail:    fmt.Sprintf("timestamp %s by %s (tolerance %s)", dir, d.Truncate(time.Second), tol),
			Timestamp: signedAt,
			Now:       t,
		}
	}
	return nil
}

// parseUnix reads a non-negative decimal integer of at most 18 digits. A
// timestamp in milliseconds parses and then lands out of range.
func parseUnix(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	return n, true
}

// decodeSig decodes a base64 v1 value into dst without heap allocation. It
// accepts standard base64 with or without padding; anything that is not
// exactly 32 bytes is rejected.
func decodeSig(dst *[32]byte, v string) bool {
	if len(v) == 0 || len(v) > maxSignatureLen {
		return false
	}
	var src [maxSignatureLen]byte
	n := copy(src[:], v)
	var out [48]byte
	enc := base64.StdEncoding
	if n%4 != 0 {
		enc = base64.RawStdEncoding
	}
	m, err := enc.Decode(out[:], src[:n])
	if err != nil || m != len(dst) {
		return false
	}
	copy(dst[:], out[:m])
	return true
}
