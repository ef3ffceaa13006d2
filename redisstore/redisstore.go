// Package redisstore keeps the state that instances of one merchant backend
// must share in Redis: the access token (mwallet.TokenStore), the idempotent
// writes whose outcome is not known yet (mwallet.PendingStore) and the
// claims and done records of webhook event ids (webhooks.Deduper).
//
//	rdb := redis.NewClient(&redis.Options{Addr: "10.0.0.5:6379",
//		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
//		ContextTimeoutEnabled: true})
//	store := redisstore.New(rdb, redisstore.Options{Prefix: "mwallet:" + clientID + ":"})
//	client, err := mwclient.New(baseURL, creds,
//		mwallet.WithTokenStore(store.Tokens()),
//		mwallet.WithPendingStore(store.Pending()))
//	http.Handle("/webhooks", webhooks.Handler(secret, handle,
//		webhooks.WithDeduper(store.Deduper())))
//
// Keys, under Options.Prefix:
//
//	token:<client id>:<base URL digest>       the access token (JSON), PX until expired_at
//	token-lock:<client id>:<base URL digest>  the exchange lock, SET NX PX with a random owner
//	pending                                    hash: idempotency key -> pending request (JSON)
//	webhook:<event id>                         "c:<lease end>:<token>" while claimed, "d" once done; PX (default 10 h)
//
// Every command touches one key, so the store works with Redis Cluster
// whatever the prefix.
//
// # Security
//
// The access token and the pending request bodies (amounts, member
// identifiers, payer data, payee bank details; never card PINs or CVVs,
// which the SDK does not record) are stored in clear. Redis must be trusted
// like the API key: a private network, authentication (an ACL user limited
// to the prefix, for example "~mwallet:*"), TLS when it crosses hosts. The
// token is never logged, and errors name keys but not values.
//
// # Failures
//
// Every call honours its context and is also bounded by Options.Timeout
// (default 3 s), so a Redis outage gives errors, never a hang; errors wrap
// the go-redis error (errors.Is(err, context.DeadlineExceeded) works).
// Create the go-redis client with ContextTimeoutEnabled so that contexts
// also end reads from a Redis that accepts connections but does not answer
// (without it, ReadTimeout bounds them), and with short DialTimeout,
// ReadTimeout and WriteTimeout. The
// SDK reacts to each: a token store failure makes the client exchange on
// its own, a pending store failure stops the write before it is sent, and
// a Deduper failure makes the webhook Handler answer 500 so the service
// redelivers.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Defaults of Options.
const (
	// DefaultPrefix is the key prefix when Options.Prefix is empty.
	DefaultPrefix = "mwallet:"
	// DefaultTimeout bounds each store call (Options.Timeout).
	DefaultTimeout = 3 * time.Second
	// DefaultDedupeTTL is how long a webhook event id's record is kept:
	// longer than the service's retry schedule (1 + 5 + 30 + 120 + 360
	// minutes, about 8.6 hours after the first attempt).
	DefaultDedupeTTL = 10 * time.Hour
)

// Options configure New. Zero fields take their defaults.
type Options struct {
	// Prefix starts every key (default "mwallet:"). Give each Key (client
	// id) its own prefix, for example "mwallet:" + clientID + ":".
	Prefix string
	// Timeout bounds each store call in addition to its context (default
	// 3 s).
	Timeout time.Duration
	// DedupeTTL is how long the Deduper keeps an event id (default 10 h).
	DedupeTTL time.Duration
}

// Store holds the Redis client and options; its views implement the SDK's
// store interfaces. It is safe for concurrent use.
type Store struct {
	rdb       redis.UniversalClient
	prefix    string
	timeout   time.Duration
	dedupeTTL time.Duration
}

// New returns a Store on rdb (a *redis.Client, *redis.ClusterClient or any
// redis.UniversalClient). Configure rdb's DialTimeout, ReadTimeout and
// WriteTimeout; the store adds a bound per call (Options.Timeout).
func New(rdb redis.UniversalClient, o Options) *Store {
	s := &Store{rdb: rdb, prefix: o.Prefix, timeout: o.Timeout, dedupeTTL: o.DedupeTTL}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.dedupeTTL <= 0 {
		s.dedupeTTL = DefaultDedupeTTL
	}
	return s
}

// Tokens returns the mwallet.TokenStore view.
func (s *Store) Tokens() *TokenStore { return &TokenStore{s} }

// Pending returns the mwallet.PendingStore view.
func (s *Store) Pending() *PendingStore { return &PendingStore{s} }

// Deduper returns the webhooks.Deduper view.
func (s *Store) Deduper() *Deduper { return &Deduper{s} }

// Prefix returns the key prefix.
func (s *Store) Prefix() string { return s.prefix }

// call bounds ctx by the store's timeout.
func (s *Store) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// wrap names the operation and key in a Redis error.
func wrap(op, key string, err error) error {
	return fmt.Errorf("redisstore: %s %s: %w", op, key, err)
}

// compareAndDelete deletes KEYS[1] when its value is ARGV[1].
var compareAndDelete = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
`)

// invalidateToken deletes the token KEYS[1] when its value field is
// ARGV[1].
var invalidateToken = redis.NewScript(`
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, t = pcall(cjson.decode, raw)
if ok and type(t) == 'table' and t['v'] == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
`)

// TokenStore keeps access tokens and exchange locks in Redis. It
// implements mwallet.TokenStore.
type TokenStore struct{ s *Store }

var _ mwallet.TokenStore = (*TokenStore)(nil)

// storedToken is the JSON form of a token in Redis.
type storedToken struct {
	Value     string `json:"v"`
	ExpiresAt int64  `json:"exp"` // Unix milliseconds
	RefreshAt int64  `json:"ref"` // Unix milliseconds
}

func (t *TokenStore) tokenKey(key string) string { return t.s.prefix + "token:" + key }
func (t *TokenStore) lockKey(key string) string  { return t.s.prefix + "token-lock:" + key }

// Load implements mwallet.TokenStore.
func (t *TokenStore) Load(ctx context.Context, key string) (mwallet.AccessToken, bool, error) {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	k := t.tokenKey(key)
	raw, err := t.s.rdb.Get(ctx, k).Bytes()
	if errors.Is(err, redis.Nil) {
		return mwallet.AccessToken{}, false, nil
	}
	if err != nil {
		return mwallet.AccessToken{}, false, wrap("token load", k, err)
	}
	var st storedToken
	if err := json.Unmarshal(raw, &st); err != nil || st.Value == "" {
		// Not ours or damaged: treat as absent; the next Store replaces it.
		return mwallet.AccessToken{}, false, nil
	}
	return mwallet.AccessToken{
		Value:     mwallet.Secret(st.Value),
		ExpiresAt: time.UnixMilli(st.ExpiresAt),
		RefreshAt: time.UnixMilli(st.RefreshAt),
	}, true, nil
}

// Store implements mwallet.TokenStore: SET with PX ttl.
func (t *TokenStore) Store(ctx context.Context, key string, tok mwallet.AccessToken, ttl time.Duration) error {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	k := t.tokenKey(key)
	if ttl < time.Millisecond {
		if err := t.s.rdb.Del(ctx, k).Err(); err != nil {
			return wrap("token delete", k, err)
		}
		return nil
	}
	raw, err := json.Marshal(storedToken{Value: tok.Value.Reveal(), ExpiresAt: tok.ExpiresAt.UnixMilli(), RefreshAt: tok.RefreshAt.UnixMilli()})
	if err != nil {
		return wrap("token encode", k, err)
	}
	if err := t.s.rdb.Set(ctx, k, raw, ttl).Err(); err != nil {
		return wrap("token store", k, err)
	}
	return nil
}

// Invalidate implements mwallet.TokenStore with a compare-and-delete
// script, so a token another instance already replaced stays.
func (t *TokenStore) Invalidate(ctx context.Context, key string, value mwallet.Secret) error {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	k := t.tokenKey(key)
	if err := invalidateToken.Run(ctx, t.s.rdb, []string{k}, value.Reveal()).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return wrap("token invalidate", k, err)
	}
	return nil
}

// Lock implements mwallet.TokenStore: SET NX PX with a random owner value;
// unlock deletes the key only while it still holds that value.
func (t *TokenStore) Lock(ctx context.Context, key string, ttl time.Duration) (func(context.Context) error, bool, error) {
	k := t.lockKey(key)
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, false, wrap("token lock owner", k, err)
	}
	owner := hex.EncodeToString(b[:])
	cctx, cancel := t.s.call(ctx)
	defer cancel()
	ok, err := t.s.rdb.SetNX(cctx, k, owner, ttl).Result()
	if err != nil {
		return nil, false, wrap("token lock", k, err)
	}
	if !ok {
		return nil, false, nil
	}
	return func(ctx context.Context) error {
		ctx, cancel := t.s.call(ctx)
		defer cancel()
		if err := compareAndDelete.Run(ctx, t.s.rdb, []string{k}, owner).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return wrap("token unlock", k, err)
		}
		return nil
	}, true, nil
}

// PendingStore keeps pending requests in one Redis hash (idempotency key to
// JSON). It implements mwallet.PendingStore.
type PendingStore struct{ s *Store }

var _ mwallet.PendingStore = (*PendingStore)(nil)

func (p *PendingStore) key() string { return p.s.prefix + "pending" }

// Put implements mwallet.PendingStore (HSET).
func (p *PendingStore) Put(ctx context.Context, r mwallet.PendingRequest) error {
	k := p.key()
	if r.Key == "" {
		return fmt.Errorf("redisstore: pending put %s: the request has no key", k)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return wrap("pending encode", k, err)
	}
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	if err := p.s.rdb.HSet(ctx, k, r.Key, raw).Err(); err != nil {
		return wrap("pending put", k, err)
	}
	return nil
}

// Delete implements mwallet.PendingStore (HDEL).
func (p *PendingStore) Delete(ctx context.Context, key string) error {
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	k := p.key()
	if err := p.s.rdb.HDel(ctx, k, key).Err(); err != nil {
		return wrap("pending delete", k, err)
	}
	return nil
}

// List implements mwallet.PendingStore (HGETALL), oldest first. A record
// that does not decode is reported as an error naming its field, never
// skipped.
func (p *PendingStore) List(ctx context.Context) ([]mwallet.PendingRequest, error) {
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	k := p.key()
	all, err := p.s.rdb.HGetAll(ctx, k).Result()
	if err != nil {
		return nil, wrap("pending list", k, err)
	}
	out := make([]mwallet.PendingRequest, 0, len(all))
	for field, raw := range all {
		var r mwallet.PendingRequest
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, wrap("pending decode", k+" field "+field, err)
		}
		out = append(out, r)
	}
	mwallet.SortPending(out)
	return out, nil
}

// Deduper keeps the claims and done records of webhook event ids in Redis.
// It implements webhooks.Deduper: one key per event id, holding
// "c:<lease end, Unix ms>:<token>" while a delivery holds the claim and "d"
// once the event was processed, both with PX DedupeTTL. Claim is one Lua
// script (atomic), and the lease is compared with the handler's clock passed
// in, never Redis's; only the retention of a key runs on Redis's clock.
type Deduper struct{ s *Store }

var _ webhooks.Deduper = (*Deduper)(nil)

func (d *Deduper) key(eventID string) string { return d.s.prefix + "webhook:" + eventID }

// claimScript takes KEYS[1] for a lease unless it is done ("d") or claimed
// with a lease ending after ARGV[1] (now, Unix ms). ARGV[2] is the new lease
// end, ARGV[3] the token, ARGV[4] the key's PX. It returns {state, lease
// end}.
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
	if v == 'd' then return {'done', ''} end
	local untilMs = string.match(v, '^c:(%d+):')
	if untilMs and tonumber(untilMs) > tonumber(ARGV[1]) then return {'held', untilMs} end
end
redis.call('SET', KEYS[1], 'c:' .. ARGV[2] .. ':' .. ARGV[3], 'PX', ARGV[4])
return {'acquired', ARGV[2]}
`)

// releaseScript deletes KEYS[1] when it holds the claim of token ARGV[1].
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.match(v, '^c:%d+:(.*)$') == ARGV[1] then
	return redis.call('DEL', KEYS[1])
end
return 0
`)

// Claim implements webhooks.Deduper.
func (d *Deduper) Claim(ctx context.Context, eventID string, now time.Time, lease time.Duration) (webhooks.Claim, error) {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	k := d.key(eventID)
	token := webhooks.NewClaimToken()
	until := now.Add(lease).UnixMilli()
	res, err := claimScript.Run(ctx, d.s.rdb, []string{k},
		now.UnixMilli(), until, token, d.s.dedupeTTL.Milliseconds()).StringSlice()
	if err != nil {
		return webhooks.Claim{}, wrap("dedupe claim", k, err)
	}
	if len(res) != 2 {
		return webhooks.Claim{}, wrap("dedupe claim", k, fmt.Errorf("unexpected answer %q", res))
	}
	switch res[0] {
	case "done":
		return webhooks.Claim{State: webhooks.ClaimDone}, nil
	case "held":
		ms, err := strconv.ParseInt(res[1], 10, 64)
		if err != nil {
			return webhooks.Claim{}, wrap("dedupe claim", k, fmt.Errorf("lease end %q: %w", res[1], err))
		}
		return webhooks.Claim{State: webhooks.ClaimHeld, Until: time.UnixMilli(ms)}, nil
	case "acquired":
		return webhooks.Claim{State: webhooks.ClaimAcquired, Token: token, Until: time.UnixMilli(until)}, nil
	}
	return webhooks.Claim{}, wrap("dedupe claim", k, fmt.Errorf("unexpected answer %q", res))
}

// Done implements webhooks.Deduper: SET key "d" PX DedupeTTL.
func (d *Deduper) Done(ctx context.Context, eventID string, _ time.Time) error {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	k := d.key(eventID)
	if err := d.s.rdb.Set(ctx, k, "d", d.s.dedupeTTL).Err(); err != nil {
		return wrap("dedupe done", k, err)
	}
	return nil
}

// Release implements webhooks.Deduper with a compare-and-delete script.
func (d *Deduper) Release(ctx context.Context, eventID, token string) error {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	k := d.key(eventID)
	if err := releaseScript.Run(ctx, d.s.rdb, []string{k}, token).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return wrap("dedupe release", k, err)
	}
	return nil
}
