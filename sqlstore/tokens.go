package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// TokenStore keeps access tokens and exchange locks in two tables. It
// implements mwallet.TokenStore; expiry follows Options.Now.
type TokenStore struct{ s *Store }

var _ mwallet.TokenStore = (*TokenStore)(nil)

// Load implements mwallet.TokenStore. A token past the drop time Store gave
// it is absent.
func (t *TokenStore) Load(ctx context.Context, key string) (mwallet.AccessToken, bool, error) {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	tbl := t.s.tokensTable()
	var value string
	var exp, ref, drop int64
	err := t.s.db.QueryRowContext(ctx, t.s.q(`SELECT value, expires_ms, refresh_ms, drop_ms FROM `+tbl+` WHERE token_key = ?`), key).
		Scan(&value, &exp, &ref, &drop)
	if errors.Is(err, sql.ErrNoRows) {
		return mwallet.AccessToken{}, false, nil
	}
	if err != nil {
		return mwallet.AccessToken{}, false, wrap("token load", tbl, err)
	}
	if value == "" || !t.s.now().Before(time.UnixMilli(drop)) {
		return mwallet.AccessToken{}, false, nil
	}
	return mwallet.AccessToken{Value: mwallet.Secret(value), ExpiresAt: time.UnixMilli(exp), RefreshAt: time.UnixMilli(ref)}, true, nil
}

// Store implements mwallet.TokenStore; the token is dropped after ttl.
func (t *TokenStore) Store(ctx context.Context, key string, tok mwallet.AccessToken, ttl time.Duration) error {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	tbl := t.s.tokensTable()
	if ttl < time.Millisecond {
		if _, err := t.s.db.ExecContext(ctx, t.s.q(`DELETE FROM `+tbl+` WHERE token_key = ?`), key); err != nil {
			return wrap("token delete", tbl, err)
		}
		return nil
	}
	_, err := t.s.db.ExecContext(ctx, t.s.q(`INSERT INTO `+tbl+` (token_key, value, expires_ms, refresh_ms, drop_ms) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (token_key) DO UPDATE SET value = excluded.value, expires_ms = excluded.expires_ms, refresh_ms = excluded.refresh_ms, drop_ms = excluded.drop_ms`),
		key, tok.Value.Reveal(), tok.ExpiresAt.UnixMilli(), tok.RefreshAt.UnixMilli(), t.s.now().Add(ttl).UnixMilli())
	if err != nil {
		return wrap("token store", tbl, err)
	}
	return nil
}

// Invalidate implements mwallet.TokenStore: it deletes the token only while
// it is value.
func (t *TokenStore) Invalidate(ctx context.Context, key string, value mwallet.Secret) error {
	ctx, cancel := t.s.call(ctx)
	defer cancel()
	tbl := t.s.tokensTable()
	if _, err := t.s.db.ExecContext(ctx, t.s.q(`DELETE FROM `+tbl+` WHERE token_key = ? AND value = ?`), key, value.Reveal()); err != nil {
		return wrap("token invalidate", tbl, err)
	}
	return nil
}

// Lock implements mwallet.TokenStore: one INSERT ... ON CONFLICT DO UPDATE
// that takes the lock when it is free or its holder's time is over; unlock
// deletes it only while it holds this caller's random owner value.
func (t *TokenStore) Lock(ctx context.Context, key string, ttl time.Duration) (func(context.Context) error, bool, error) {
	tbl := t.s.locksTable()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, false, wrap("token lock owner", tbl, err)
	}
	owner := hex.EncodeToString(b[:])
	cctx, cancel := t.s.call(ctx)
	defer cancel()
	now := t.s.now()
	var got string
	err := t.s.db.QueryRowContext(cctx, t.s.q(`INSERT INTO `+tbl+` (token_key, owner, until_ms) VALUES (?, ?, ?)
ON CONFLICT (token_key) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms
WHERE `+tbl+`.until_ms <= ?
RETURNING owner`), key, owner, now.Add(ttl).UnixMilli(), now.UnixMilli()).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap("token lock", tbl, err)
	}
	if got != owner {
		return nil, false, nil
	}
	return func(ctx context.Context) error {
		ctx, cancel := t.s.call(ctx)
		defer cancel()
		if _, err := t.s.db.ExecContext(ctx, t.s.q(`DELETE FROM `+tbl+` WHERE token_key = ? AND owner = ?`), key, owner); err != nil {
			return wrap("token unlock", tbl, err)
		}
		return nil
	}, true, nil
}
