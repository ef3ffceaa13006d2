// Package sqlstore keeps the state a merchant backend must not lose in its
// own SQL database (PostgreSQL or SQLite, through database/sql): the
// idempotent writes whose outcome is not known yet (mwallet.PendingStore),
// the claims and done records of webhook event ids (webhooks.Deduper) and
// the access token shared by the instances of one Key (mwallet.TokenStore).
//
//	db, err := sql.Open("pgx", dsn) // github.com/jackc/pgx/v5/stdlib; or "sqlite" (modernc.org/sqlite)
//	store, err := sqlstore.New(db, sqlstore.Options{Dialect: sqlstore.Postgres})
//	err = store.CreateTables(ctx) // or run store.Schema() in your migrations
//	client, err := mwclient.New(baseURL, creds,
//		mwallet.WithTokenStore(store.Tokens()),
//		mwallet.WithPendingStore(store.Pending()))
//	http.Handle("/webhooks", webhooks.Handler(secret, handle,
//		webhooks.WithDeduper(store.Deduper())))
//
// Its point over a separate store is the transaction: a backend keeps its
// orders in the same database, so PendingStore.PutTx writes the intent to
// pay in the transaction that creates the order (one commit: either both or
// neither; pass it to the call with mwallet.WithPendingWrite), and
// Deduper.DoneTx records a webhook as processed in the transaction that
// applies it, which makes its processing exactly once even across a crash.
//
// The package imports no driver: open the *sql.DB with the driver of your
// choice and name its dialect. It is tested on PostgreSQL (pgx) and SQLite
// (modernc.org/sqlite, pure Go). Open SQLite with a busy timeout and WAL
// (file:orders.db?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)):
// several connections then write in turn instead of failing with
// "database is locked".
//
// # Tables
//
// Four tables under Options.Prefix (default "mwallet_"); Schema returns their
// statements:
//
//	mwallet_pending         idempotency key -> pending request (JSON), client id, created_at
//	mwallet_webhook_events  event id -> state (claimed, done), claim token, lease end or expiry (Unix ms)
//	mwallet_tokens          token key -> access token, expiry, refresh time, drop time
//	mwallet_token_locks     token key -> exchange lock owner and end
//
// # Security
//
// The access token and the pending request bodies (amounts, member
// identifiers, payer data, payee bank details; never card PINs or CVVs, which
// the SDK does not record) are stored in clear. Restrict the tables like the
// API key.
//
// # Failures
//
// Every call honours its context and is bounded by Options.Timeout (default
// 3 s). Errors name the operation and table and wrap the driver's error. The
// SDK reacts as to any store: a pending store failure stops the write before
// it is sent, a token store failure makes the client exchange on its own,
// and a Deduper failure makes the webhook Handler answer 500.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Dialect names the SQL database behind the *sql.DB.
type Dialect string

// Dialects.
const (
	// Postgres is PostgreSQL (placeholders $1, $2, ...), for example through
	// github.com/jackc/pgx/v5/stdlib or github.com/lib/pq.
	Postgres Dialect = "postgres"
	// SQLite is SQLite 3.35 or later (placeholders ?), for example through
	// modernc.org/sqlite.
	SQLite Dialect = "sqlite"
)

// Defaults of Options.
const (
	// DefaultPrefix starts every table name when Options.Prefix is empty.
	DefaultPrefix = "mwallet_"
	// DefaultTimeout bounds each store call (Options.Timeout).
	DefaultTimeout = 3 * time.Second
	// DefaultDedupeTTL is how long a processed webhook event id is kept:
	// longer than the service's retry schedule (1 + 5 + 30 + 120 + 360
	// minutes, about 8.6 hours).
	DefaultDedupeTTL = 10 * time.Hour
)

// Options configure New. Dialect is required; zero fields take their
// defaults.
type Options struct {
	// Dialect is the database: Postgres or SQLite.
	Dialect Dialect
	// Prefix starts every table name (default "mwallet_"): letters,
	// digits and underscores only. Give each Key (client id) its own prefix
	// when several share a database.
	Prefix string
	// Timeout bounds each store call in addition to its context (default
	// 3 s).
	Timeout time.Duration
	// DedupeTTL is how long the Deduper keeps a processed event id (default
	// 10 h).
	DedupeTTL time.Duration
	// Now is the clock of token and lock expiry (default time.Now). Webhook
	// leases use the handler's clock, passed to each Deduper call.
	Now func() time.Time
}

// Store holds the database and options; its views implement the SDK's
// store interfaces. It is safe for concurrent use.
type Store struct {
	db        *sql.DB
	dialect   Dialect
	prefix    string
	timeout   time.Duration
	dedupeTTL time.Duration
	now       func() time.Time
}

// New returns a Store on db. It checks the options; it does not touch the
// database (CreateTables does).
func New(db *sql.DB, o Options) (*Store, error) {
	if db == nil {
		return nil, errors.New("sqlstore: a *sql.DB is required")
	}
	if o.Dialect != Postgres && o.Dialect != SQLite {
		return nil, fmt.Errorf("sqlstore: Options.Dialect %q: want sqlstore.Postgres or sqlstore.SQLite", o.Dialect)
	}
	s := &Store{db: db, dialect: o.Dialect, prefix: o.Prefix, timeout: o.Timeout, dedupeTTL: o.DedupeTTL, now: o.Now}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	for _, r := range s.prefix {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return nil, fmt.Errorf("sqlstore: Options.Prefix %q: letters, digits and underscores only", o.Prefix)
		}
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.dedupeTTL <= 0 {
		s.dedupeTTL = DefaultDedupeTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Table names.
func (s *Store) pendingTable() string { return s.prefix + "pending" }
func (s *Store) eventsTable() string  { return s.prefix + "webhook_events" }
func (s *Store) tokensTable() string  { return s.prefix + "tokens" }
func (s *Store) locksTable() string   { return s.prefix + "token_locks" }

// Schema returns the statements that create the store's tables (IF NOT
// EXISTS), for your migrations; CreateTables runs them.
func (s *Store) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS ` + s.pendingTable() + ` (
	idem_key   TEXT PRIMARY KEY,
	client_id  TEXT NOT NULL,
	created_ms BIGINT NOT NULL,
	record     TEXT NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS ` + s.eventsTable() + ` (
	event_id TEXT PRIMARY KEY,
	state    TEXT NOT NULL,
	token    TEXT NOT NULL,
	until_ms BIGINT NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS ` + s.tokensTable() + ` (
	token_key  TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	expires_ms BIGINT NOT NULL,
	refresh_ms BIGINT NOT NULL,
	drop_ms    BIGINT NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS ` + s.locksTable() + ` (
	token_key TEXT PRIMARY KEY,
	owner     TEXT NOT NULL,
	until_ms  BIGINT NOT NULL
)`,
	}
}

// CreateTables creates the store's tables when they do not exist.
func (s *Store) CreateTables(ctx context.Context) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	for _, stmt := range s.Schema() {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("sqlstore: create tables: %w", err)
		}
	}
	return nil
}

// Pending returns the mwallet.PendingStore view.
func (s *Store) Pending() *PendingStore { return &PendingStore{s} }

// Deduper returns the webhooks.Deduper view.
func (s *Store) Deduper() *Deduper { return &Deduper{s} }

// Tokens returns the mwallet.TokenStore view.
func (s *Store) Tokens() *TokenStore { return &TokenStore{s} }

// Prefix returns the table name prefix.
func (s *Store) Prefix() string { return s.prefix }

// call bounds ctx by the store's timeout.
func (s *Store) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// q writes a statement with ? placeholders in the dialect's form.
func (s *Store) q(stmt string) string { return Rebind(s.dialect, stmt) }

// execer is a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// wrap names the operation and table in an error.
func wrap(op, table string, err error) error {
	return fmt.Errorf("sqlstore: %s %s: %w", op, table, err)
}

// Dialect returns the store's dialect.
func (s *Store) Dialect() Dialect { return s.dialect }

// Rebind rewrites a statement written with ? placeholders for dialect:
// $1, $2, ... for Postgres, unchanged for SQLite. It does not parse SQL: a ?
// inside a string literal is rewritten too.
func Rebind(dialect Dialect, stmt string) string {
	if dialect != Postgres {
		return stmt
	}
	var b strings.Builder
	n := 0
	for _, r := range stmt {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
