package mwallet

import (
	"log/slog"
	"net/http"
	"time"
)

// Defaults of the client options.
const (
	// DefaultMaxAttempts is the number of HTTP attempts of one call, the first
	// included (WithDefaultMaxAttempts, WithMaxAttempts).
	DefaultMaxAttempts = 3
	// DefaultMinBackoff and DefaultMaxBackoff bound the exponential backoff
	// between attempts (WithRetryBackoff).
	DefaultMinBackoff = 200 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	// DefaultMaxRetryAfter is the longest Retry-After the client waits for by
	// itself; a longer one ends the call with the rate_limited error
	// (WithMaxRetryAfter).
	DefaultMaxRetryAfter = 60 * time.Second
	// DefaultAttemptTimeout bounds one HTTP attempt, response body included
	// (WithDefaultAttemptTimeout).
	DefaultAttemptTimeout = 30 * time.Second
	// DefaultTokenExchangesPerMinute is the client-side limit on token
	// exchanges; the service allows 20 per minute (WithTokenExchangeLimit).
	DefaultTokenExchangesPerMinute = 20
	// DefaultRetryBudget and DefaultRetryCost shape the retry budget
	// (WithRetryBudget).
	DefaultRetryBudget = 500
	DefaultRetryCost   = 5
	// MaxResponseBytes bounds every response body the client reads.
	MaxResponseBytes = 10 << 20
)

// Option configures a Client; pass options to NewClient.
type Option func(*config)

type config struct {
	httpClient     *http.Client
	clock          Clock
	clockOffset    time.Duration
	skewOff        bool
	logger         *slog.Logger
	userAgent      string
	maxAttempts    int
	minBackoff     time.Duration
	maxBackoff     time.Duration
	maxRetryAfter  time.Duration
	attemptTimeout time.Duration
	exchangeLimit  int
	budgetCapacity int
	budgetCost     int
	store          TokenStore
	pending        PendingStore
	observer       Observer
}

func defaultConfig() config {
	return config{
		httpClient:     http.DefaultClient,
		clock:          wallClock{},
		maxAttempts:    DefaultMaxAttempts,
		minBackoff:     DefaultMinBackoff,
		maxBackoff:     DefaultMaxBackoff,
		maxRetryAfter:  DefaultMaxRetryAfter,
		attemptTimeout: DefaultAttemptTimeout,
		exchangeLimit:  DefaultTokenExchangesPerMinute,
		budgetCapacity: DefaultRetryBudget,
		budgetCost:     DefaultRetryCost,
	}
}

// WithHTTPClient sets the HTTP client used for every request. The client
// works on a copy: it keeps the transport, cookie jar and timeout, and turns
// off redirects (a redirected signed request would carry the access token to
// another address). TLS settings are the transport's; the client never
// weakens them.
func WithHTTPClient(h *http.Client) Option {
	return func(c *config) {
		if h != nil {
			c.httpClient = h
		}
	}
}

// WithClock sets the clock used for signing timestamps and token expiry;
// waits stay in real time. WithClockSource sets both the time and the waits
// (a simulator's clock), and replaces this.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = nowClock{now: now}
		}
	}
}

// WithLogger sets the logger. The client logs each attempt at debug level
// (method, path, status, code, attempt, request id, idempotency key) and
// configuration warnings at warn level; it never logs tokens, keys,
// signatures or bodies. Without this option it uses slog.Default(), whose
// default handler drops debug records.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithUserAgent puts product (for example "shop-backend/2.1") in front of the
// SDK's own User-Agent.
func WithUserAgent(product string) Option {
	return func(c *config) { c.userAgent = product }
}

// WithDefaultMaxAttempts sets how many HTTP attempts one call may take, the
// first included (default 3; 1 turns retries off). WithMaxAttempts overrides
// it per call. The single re-authentication after invalid_token is not
// counted.
func WithDefaultMaxAttempts(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxAttempts = n
		}
	}
}

// WithRetryBackoff bounds the exponential backoff with full jitter between
// attempts (default 200 ms to 5 s). The 1-2 s wait after
// idempotency_in_progress is capped by max too.
func WithRetryBackoff(min, max time.Duration) Option {
	return func(c *config) {
		if min < 0 {
			min = 0
		}
		if max < min {
			max = min
		}
		c.minBackoff, c.maxBackoff = min, max
	}
}

// WithMaxRetryAfter sets the longest Retry-After (or retry_after) the client
// waits for before retrying rate_limited (default 60 s). A longer wait, or one
// that would outlast the context deadline, ends the call at once with the
// rate_limited *Error, whose RetryDelay tells how long to wait.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.maxRetryAfter = d
		}
	}
}

// WithDefaultAttemptTimeout bounds each HTTP attempt, reading the response
// included, separately from the context deadline that bounds the whole call
// (default 30 s; 0 leaves attempts bounded only by the context and the HTTP
// client's own Timeout). WithAttemptTimeout overrides it per call.
func WithDefaultAttemptTimeout(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.attemptTimeout = d
		}
	}
}

// WithTokenExchangeLimit sets the client-side limit on token exchanges per
// minute (default 20, the service's limit). Exchanges are spread evenly with
// small bursts; a caller waits for its turn within its context. 0 or less
// removes the limit.
func WithTokenExchangeLimit(perMinute int) Option {
	return func(c *config) { c.exchangeLimit = perMinute }
}

// WithRetryBudget sets the retry budget shared by every call of the client:
// a token bucket of capacity tokens; each retry takes cost tokens (twice cost
// after a network error or timeout), each retried call that then succeeds
// gives its cost back and each first-attempt success adds one token. With an
// empty bucket calls are not retried, so an outage does not multiply the
// load. capacity <= 0 disables the budget. Defaults: 500 and 5.
func WithRetryBudget(capacity, cost int) Option {
	return func(c *config) {
		c.budgetCapacity = capacity
		if cost < 1 {
			cost = 1
		}
		c.budgetCost = cost
	}
}

// WithTokenStore keeps the access token in store instead of the Client's
// own memory. Clients of a fleet that share a store (package redisstore
// keeps it in Redis) share one token: the first to need one takes the
// store's exchange lock and exchanges, the others wait (polling every 50 to
// 200 ms, within their context) and read it; a token due for refresh is
// still used by the others while one client replaces it. A lock holder that
// crashes delays the others by TokenLockTTL (10 s) at most. When the store
// fails the client logs a warning and exchanges on its own. See TokenStore.
func WithTokenStore(store TokenStore) Option {
	return func(c *config) { c.store = store }
}

// WithPendingStore records every idempotent write in store before it is
// sent and removes it once its outcome is known, so a process that crashed
// (or timed out) in between can find it with Client.PendingRequests and
// finish it with Client.Resume: same idempotency key, same body bytes, so
// the service replays the first result instead of executing twice. Requests
// whose body carries secrets (card PIN, CVV) are never recorded. When the
// store cannot record a request, the call fails before sending anything.
// See PendingStore. Without this option nothing is recorded.
func WithPendingStore(store PendingStore) Option {
	return func(c *config) { c.pending = store }
}
