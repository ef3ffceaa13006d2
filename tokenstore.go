package mwallet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// TokenLockTTL is how long a client holds the exchange lock of a
// TokenStore: a holder that crashes without releasing it delays the other
// clients of the Key by this much at most.
const TokenLockTTL = 10 * time.Second

// AccessToken is an access token as a TokenStore keeps it. Value is a
// Secret: it prints, logs and JSON-encodes as [redacted], so a store must
// write Value.Reveal() explicitly (and a store that json.Marshals the struct
// as is stores nothing usable, which fails safe).
type AccessToken struct {
	// Value is the auth_token the service issued.
	Value Secret
	// ExpiresAt is the service's expired_at.
	ExpiresAt time.Time
	// RefreshAt is when clients start replacing the token: ExpiresAt minus
	// the smaller of 60 s and a tenth of the lifetime. Between RefreshAt
	// and ExpiresAt the token is still used while one client exchanges.
	RefreshAt time.Time
}

// TokenStore keeps the access token of a Key where every client using that
// Key can read it. The default, one MemoryTokenStore per Client, serves one
// process; a store shared between processes (package redisstore keeps it in
// Redis) lets a fleet of instances share one token and one exchange, so 50
// instances starting together do not spend the Key's 20 token exchanges per
// minute.
//
// key identifies the Key and the environment (Client.TokenStoreKey): client
// id and a digest of the base URL. Implementations must be safe for
// concurrent use and honour ctx. An access token is a secret: a shared store
// holds it in clear unless the store encrypts it, so it must be trusted
// like the API key (access control, no public network).
//
// When a store call fails the client logs a warning and carries on with its
// own exchange (still limited by WithTokenExchangeLimit), so an outage of
// the store does not stop calls.
type TokenStore interface {
	// Load returns the token stored under key, if any (ok false when none).
	// An expired token may be returned; the client checks ExpiresAt.
	Load(ctx context.Context, key string) (t AccessToken, ok bool, err error)
	// Store replaces the token under key. ttl is how long the token stays
	// valid by the client's clock (ExpiresAt minus now); the store should
	// drop it after that.
	Store(ctx context.Context, key string, t AccessToken, ttl time.Duration) error
	// Invalidate removes the token under key if its value is value: the
	// service answered invalid_token for it. A token another client already
	// replaced is left alone.
	Invalidate(ctx context.Context, key string, value Secret) error
	// Lock tries once, without waiting, to take the exchange lock of key
	// for ttl. acquired is false when another holder has it; the client
	// then polls Load until the holder stored a token or the lock expired.
	// unlock releases the lock only if this caller still holds it (an
	// expired lock taken over by another caller is left alone). A holder
	// that crashes without unlocking blocks the others for ttl at most.
	Lock(ctx context.Context, key string, ttl time.Duration) (unlock func(context.Context) error, acquired bool, err error)
}

// MemoryTokenStore is a TokenStore in process memory: Clients of one process
// that share it (WithTokenStore) share their tokens and exchanges. Every
// Client without WithTokenStore has its own. It is safe for concurrent use.
type MemoryTokenStore struct {
	mu     sync.Mutex
	tokens map[string]memoryToken
	locks  map[string]memoryLock
	now    func() time.Time // lock expiry and token TTL, real time
}

type memoryToken struct {
	t       AccessToken
	dropsAt time.Time // real time
}

type memoryLock struct {
	owner   string
	expires time.Time
}

// NewMemoryTokenStore returns an empty MemoryTokenStore.
func NewMemoryTokenStore() *MemoryTokenStore {
	return &MemoryTokenStore{tokens: map[string]memoryToken{}, locks: map[string]memoryLock{}, now: time.Now}
}

// Load implements TokenStore.
func (m *MemoryTokenStore) Load(_ context.Context, key string) (AccessToken, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.tokens[key]
	if !ok {
		return AccessToken{}, false, nil
	}
	if !m.now().Before(e.dropsAt) {
		delete(m.tokens, key)
		return AccessToken{}, false, nil
	}
	return e.t, true, nil
}

// Store implements TokenStore. A ttl of zero or less removes the token.
func (m *MemoryTokenStore) Store(_ context.Context, key string, t AccessToken, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ttl <= 0 {
		delete(m.tokens, key)
		return nil
	}
	m.tokens[key] = memoryToken{t: t, dropsAt: m.now().Add(ttl)}
	return nil
}

// Invalidate implements TokenStore.
func (m *MemoryTokenStore) Invalidate(_ context.Context, key string, value Secret) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.tokens[key]; ok && e.t.Value == value {
		delete(m.tokens, key)
	}
	return nil
}

// Lock implements TokenStore.
func (m *MemoryTokenStore) Lock(_ context.Context, key string, ttl time.Duration) (func(context.Context) error, bool, error) {
	owner, err := lockOwner()
	if err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if l, ok := m.locks[key]; ok && now.Before(l.expires) {
		return nil, false, nil
	}
	m.locks[key] = memoryLock{owner: owner, expires: now.Add(ttl)}
	return func(context.Context) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if l, ok := m.locks[key]; ok && l.owner == owner {
			delete(m.locks, key)
		}
		return nil
	}, true, nil
}

// lockOwner returns a random value identifying one lock holder.
func lockOwner() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mwallet: token lock owner: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// TokenStoreKey returns the key under which the client keeps its access
// token (and takes the exchange lock) in its TokenStore: the client id and a
// digest of the base URL, so one store can serve several Keys and
// environments. Operators use it to inspect or clear a shared token.
func (c *Client) TokenStoreKey() string { return c.auth.key }
