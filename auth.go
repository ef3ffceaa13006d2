package mwallet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

const redacted = "[redacted]"

// Secret is a credential value. It prints as [redacted] through every fmt
// verb (%v, %+v, %#v, %s, %q, ...), String, GoString, JSON and slog, so it
// never reaches a log line or an error message by accident. Reveal returns
// the value itself.
type Secret string

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// GoString returns "[redacted]".
func (Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb ("\"[redacted]\"" for %q).
func (Secret) Format(f fmt.State, verb rune) { writeRedacted(f, verb) }

// MarshalJSON writes "[redacted]".
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText writes [redacted], so text encoders and map keys stay safe too.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue makes slog print [redacted].
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// Reveal returns the secret value itself. Only the client needs it.
func (s Secret) Reveal() string { return string(s) }

func writeRedacted(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = f.Write([]byte(`"` + redacted + `"`))
		return
	}
	_, _ = f.Write([]byte(redacted))
}

// Credentials identify the merchant's API Key. APIKey is used only to obtain
// access tokens; SigningKey only to sign writes. Do not mix them up.
// Credentials print with ClientID only, whatever the verb.
type Credentials struct {
	// ClientID is sent as x-client-id on token exchange.
	ClientID string
	// APIKey is sent as x-api-key on token exchange and nowhere else.
	APIKey Secret
	// SigningKey is the HMAC-SHA-256 key of x-signature; it is never sent.
	SigningKey Secret
}

// String returns the client id with both secrets redacted.
func (c Credentials) String() string {
	return "mwallet.Credentials{ClientID:" + c.ClientID + " APIKey:" + redacted + " SigningKey:" + redacted + "}"
}

// GoString is String.
func (c Credentials) GoString() string { return c.String() }

// Format writes String for every verb (quoted for %q).
func (c Credentials) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", c.String())
		return
	}
	_, _ = f.Write([]byte(c.String()))
}

// MarshalJSON writes the client id and redacted secrets.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ClientID   string `json:"client_id"`
		APIKey     Secret `json:"api_key"`
		SigningKey Secret `json:"signing_key"`
	}{c.ClientID, c.APIKey, c.SigningKey})
}

// LogValue makes slog print the client id only.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.ClientID), slog.String("api_key", redacted), slog.String("signing_key", redacted))
}

// cachedToken is an access token with its validity. It never prints its value.
type cachedToken struct {
	value     string
	header    string // "Bearer " + value, built once
	expiresAt time.Time
	refreshAt time.Time // expiresAt minus the refresh margin
}

// Format keeps the token value out of every fmt verb.
func (t cachedToken) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "token{expires_at:%s value:%s}", t.expiresAt.UTC().Format(time.RFC3339), redacted)
}

// Token refresh margin: a token is replaced this long before expired_at
// (the smaller of 60 s and a tenth of its lifetime).
const (
	tokenRefreshMargin = 60 * time.Second
	// exchangeTimeout bounds one shared token exchange, which runs detached
	// from the context of the call that started it (other callers wait on it).
	exchangeTimeout = 60 * time.Second
	// tokenPollMin and tokenPollMax bound the wait between two reads of the
	// store while another client holds the exchange lock.
	tokenPollMin = 50 * time.Millisecond
	tokenPollMax = 200 * time.Millisecond
	// storeCallTimeout bounds store calls that run after the caller's
	// context may have ended (releasing the lock).
	storeCallTimeout = 5 * time.Second
)

// auth obtains, caches and refreshes access tokens. Concurrent callers share
// one exchange; exchanges are limited client-side. The token lives in a
// TokenStore (shared by a fleet, or in memory) and is cached locally, so the
// store is read only when the local copy is due for refresh.
type auth struct {
	c       *Client
	store   TokenStore
	key     string
	local   atomic.Pointer[cachedToken]
	group   singleflight.Group
	limiter *rate.Limiter
	// exchanges counts token exchanges attempted (for the debug log).
	exchanges atomic.Int64
}

func newAuth(c *Client, store TokenStore, key string, perMinute int) *auth {
	lim := rate.NewLimiter(rate.Inf, 1)
	if perMinute > 0 {
		burst := perMinute / 5
		if burst < 1 {
			burst = 1
		}
		lim = rate.NewLimiter(rate.Limit(float64(perMinute)/60), burst)
	}
	if store == nil {
		store = NewMemoryTokenStore()
	}
	return &auth{c: c, store: store, key: key, limiter: lim}
}

// tokenStoreKey is the TokenStore key of a Key and environment.
func tokenStoreKey(clientID, base string) string {
	sum := sha256.Sum256([]byte(base))
	return clientID + ":" + hex.EncodeToString(sum[:8])
}

// token returns a token valid now and for at least the refresh margin,
// exchanging credentials when needed. The wait for a shared exchange ends
// when ctx ends.
func (a *auth) token(ctx context.Context) (cachedToken, error) {
	if t := a.local.Load(); t != nil && a.c.Now().Before(t.refreshAt) {
		return *t, nil
	}
	ch := a.group.DoChan("token", func() (any, error) {
		if t := a.local.Load(); t != nil && a.c.Now().Before(t.refreshAt) {
			return *t, nil
		}
		xctx, cancel := detached(ctx, exchangeTimeout)
		defer cancel()
		return a.obtain(xctx)
	})
	select {
	case <-ctx.Done():
		return cachedToken{}, fmt.Errorf("mwallet: waiting for the access token: %w", ctx.Err())
	case r := <-ch:
		if r.Err != nil {
			return cachedToken{}, r.Err
		}
		return r.Val.(cachedToken), nil
	}
}

// obtain reads the shared token; when it is missing or due for refresh, it
// takes the exchange lock and exchanges, or, when another client holds the
// lock, keeps using a token that is still valid or polls the store until
// the holder stored a new token or its lock expired.
func (a *auth) obtain(ctx context.Context) (cachedToken, error) {
	for round := 1; ; round++ {
		now := a.c.Now()
		stored, ok, err := a.store.Load(ctx, a.key)
		if err != nil {
			return a.storeFailed(ctx, "load", err)
		}
		var usable *cachedToken
		if ok && stored.Value != "" {
			t := fromAccessToken(stored)
			if now.Before(t.refreshAt) {
				a.local.Store(&t)
				return t, nil
			}
			if now.Before(t.expiresAt) {
				usable = &t
			}
		}
		unlock, acquired, err := a.store.Lock(ctx, a.key, TokenLockTTL)
		if err != nil {
			return a.storeFailed(ctx, "lock", err)
		}
		if acquired {
			return a.exchangeLocked(ctx, unlock)
		}
		if usable != nil {
			// Another client is refreshing; this token is still valid.
			a.local.Store(usable)
			return *usable, nil
		}
		if err := a.c.Sleep(ctx, backoff(tokenPollMin, tokenPollMax, round)); err != nil {
			return cachedToken{}, fmt.Errorf("mwallet: waiting for another client's token exchange: %w", err)
		}
	}
}

// exchangeLocked runs with the exchange lock held: it reads the store once
// more (another client may have stored a token meanwhile), else exchanges.
func (a *auth) exchangeLocked(ctx context.Context, unlock func(context.Context) error) (cachedToken, error) {
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeCallTimeout)
		defer cancel()
		if err := unlock(uctx); err != nil {
			a.storeWarn(ctx, "unlock", err)
		}
	}()
	if stored, ok, err := a.store.Load(ctx, a.key); err == nil && ok && stored.Value != "" {
		if t := fromAccessToken(stored); a.c.Now().Before(t.refreshAt) {
			a.local.Store(&t)
			return t, nil
		}
	}
	return a.observedExchange(ctx)
}

// storeFailed carries on without the store: a store outage must not stop
// calls, so the client exchanges on its own (still rate limited).
func (a *auth) storeFailed(ctx context.Context, op string, err error) (cachedToken, error) {
	a.storeWarn(ctx, op, err)
	return a.observedExchange(ctx)
}

func (a *auth) storeWarn(ctx context.Context, op string, err error) {
	a.c.logger().LogAttrs(ctx, slog.LevelWarn, "mwallet: token store "+op+" failed; exchanging without the shared token",
		slog.String("error", err.Error()))
}

// fromAccessToken builds the local form of a stored token.
func fromAccessToken(s AccessToken) cachedToken {
	v := s.Value.Reveal()
	t := cachedToken{value: v, header: "Bearer " + v, expiresAt: s.ExpiresAt, refreshAt: s.RefreshAt}
	if t.refreshAt.IsZero() || t.refreshAt.After(t.expiresAt) {
		t.refreshAt = t.expiresAt
	}
	return t
}

// detached returns a context that does not end when ctx is cancelled (other
// callers may be waiting on the work) but keeps ctx's deadline, capped at max.
func detached(ctx context.Context, max time.Duration) (context.Context, context.CancelFunc) {
	dl := time.Now().Add(max)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), dl)
}

// invalidate drops value from the local cache and the store after the
// service answered invalid_token for it.
func (a *auth) invalidate(ctx context.Context, value string) {
	if t := a.local.Load(); t != nil && t.value == value {
		a.local.CompareAndSwap(t, nil)
	}
	if err := a.store.Invalidate(ctx, a.key, Secret(value)); err != nil {
		a.storeWarn(ctx, "invalidate", err)
	}
}

// tokenResponse is the 200 body of POST /v1/connect/token.
type tokenResponse struct {
	AuthToken string   `json:"auth_token"`
	ExpiredAt int64    `json:"expired_at"`
	TokenType string   `json:"token_type"`
	Scopes    []string `json:"scopes"`
}

// exchange runs POST /v1/connect/token (headers x-client-id and x-api-key,
// no body) through the retry loop, then caches the token.
func (a *auth) exchange(ctx context.Context) (cachedToken, error) {
	if err := a.waitTurn(ctx); err != nil {
		return cachedToken{}, fmt.Errorf("mwallet: token exchange limit (%d per minute): %w", a.c.cfg.exchangeLimit, err)
	}
	a.exchanges.Add(1)
	var tr tokenResponse
	_, err := a.c.run(ctx, &callSpec{
		method:   http.MethodPost,
		path:     tokenPath,
		exchange: true,
		// The exchange changes nothing on the server, so it is retried like
		// a keyed write.
		keyed: true,
	}, &tr, callOptions{})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return cachedToken{}, err
		}
		return cachedToken{}, fmt.Errorf("mwallet: token exchange: %w", err)
	}
	if strings.TrimSpace(tr.AuthToken) == "" || tr.ExpiredAt <= 0 {
		return cachedToken{}, errors.New("mwallet: token exchange: the response has no auth_token or expired_at")
	}
	if tt := strings.TrimSpace(tr.TokenType); tt != "" && !strings.EqualFold(tt, "Bearer") {
		return cachedToken{}, fmt.Errorf("mwallet: token exchange: unsupported token_type %q", tt)
	}
	now := a.c.Now()
	exp := time.Unix(tr.ExpiredAt, 0)
	life := exp.Sub(now)
	t := cachedToken{value: tr.AuthToken, header: "Bearer " + tr.AuthToken, expiresAt: exp}
	if life <= 0 {
		// The local clock is at or past expired_at: use the token for this
		// call but do not cache it.
		a.c.logger().LogAttrs(ctx, slog.LevelWarn, "mwallet: access token already expired by the local clock; check the clock",
			slog.Time("expired_at", exp), slog.Time("now", now))
		t.refreshAt = now
		return t, nil
	}
	margin := min(tokenRefreshMargin, life/10)
	t.refreshAt = exp.Add(-margin)
	a.local.Store(&t)
	if err := a.store.Store(ctx, a.key, AccessToken{Value: Secret(t.value), ExpiresAt: exp, RefreshAt: t.refreshAt}, life); err != nil {
		// The token is good; only the other clients miss it.
		a.storeWarn(ctx, "store", err)
	}
	a.c.logger().LogAttrs(ctx, slog.LevelDebug, "mwallet: access token obtained",
		slog.Time("expired_at", exp), slog.Int("scopes", len(tr.Scopes)))
	return t, nil
}

const tokenPath = "/v1/connect/token"

// waitTurn waits for the limiter's next exchange on the client's clock (its
// own, uncorrected: the limiter counts intervals), or until ctx ends; a
// turn given up is handed back to the limiter.
func (a *auth) waitTurn(ctx context.Context) error {
	now := a.c.clock.Now()
	r := a.limiter.ReserveN(now, 1)
	if !r.OK() {
		return errors.New("the limiter refused the exchange")
	}
	if d := r.DelayFrom(now); d > 0 {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			// As rate.Limiter.Wait: a turn after the deadline is refused now.
			r.CancelAt(now)
			return fmt.Errorf("the next exchange is %s away, after the context's deadline: %w", d.Round(time.Millisecond), context.DeadlineExceeded)
		}
		if err := a.c.Sleep(ctx, d); err != nil {
			r.CancelAt(a.c.clock.Now())
			return err
		}
	}
	return nil
}

// sleep waits d, or until ctx ends and then returns ctx.Err().
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
