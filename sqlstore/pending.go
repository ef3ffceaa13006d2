package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	mwallet "github.com/mwallet/mwallet-go"
)

// PendingStore keeps pending requests in one table (idempotency key to the
// request as JSON). It implements mwallet.PendingStore, and PutTx writes a
// record inside the caller's transaction.
type PendingStore struct{ s *Store }

var _ mwallet.PendingStore = (*PendingStore)(nil)

// Put implements mwallet.PendingStore: an insert, or a replacement of the
// record of the same key.
func (p *PendingStore) Put(ctx context.Context, r mwallet.PendingRequest) error {
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	return p.put(ctx, p.s.db, r)
}

// PutTx writes r inside tx, the caller's transaction, so the record and the
// caller's own rows (the order that is about to be paid) commit together or
// not at all. Give it to the call with mwallet.WithPendingWrite, which hands
// over the record before the first attempt and sends nothing when the write
// or the commit fails:
//
//	order, err := client.QRPay.Pay(ctx, member, params, mwallet.WithIdempotencyKey(key),
//		mwallet.WithPendingWrite(func(ctx context.Context, p mwallet.PendingRequest) error {
//			tx, err := db.BeginTx(ctx, nil)
//			if err != nil {
//				return err
//			}
//			defer tx.Rollback()
//			if _, err := tx.ExecContext(ctx, insertOrderOnce, orderID, p.Key); err != nil {
//				return err
//			}
//			if err := store.Pending().PutTx(ctx, tx, p); err != nil {
//				return err
//			}
//			return tx.Commit()
//		}))
//
// A process that dies after the commit leaves both the order and the
// record: at start-up, client.PendingRequests lists it and client.Resume
// sends it with its key (the service executes it at most once). PutTx does
// not bound ctx by Options.Timeout: the transaction is yours.
func (p *PendingStore) PutTx(ctx context.Context, tx *sql.Tx, r mwallet.PendingRequest) error {
	if tx == nil {
		return fmt.Errorf("sqlstore: pending put %s: a transaction is required", p.s.pendingTable())
	}
	return p.put(ctx, tx, r)
}

func (p *PendingStore) put(ctx context.Context, e execer, r mwallet.PendingRequest) error {
	t := p.s.pendingTable()
	if r.Key == "" {
		return fmt.Errorf("sqlstore: pending put %s: the request has no key", t)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return wrap("pending encode", t, err)
	}
	_, err = e.ExecContext(ctx, p.s.q(`INSERT INTO `+t+` (idem_key, client_id, created_ms, record) VALUES (?, ?, ?, ?)
ON CONFLICT (idem_key) DO UPDATE SET client_id = excluded.client_id, created_ms = excluded.created_ms, record = excluded.record`),
		r.Key, r.ClientID, r.CreatedAt.UnixMilli(), string(raw))
	if err != nil {
		return wrap("pending put", t, err)
	}
	return nil
}

// Delete implements mwallet.PendingStore.
func (p *PendingStore) Delete(ctx context.Context, key string) error {
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	return p.delete(ctx, p.s.db, key)
}

// DeleteTx deletes the record of key inside tx: for example when the order
// is cancelled after its outcome was reconciled by other means.
func (p *PendingStore) DeleteTx(ctx context.Context, tx *sql.Tx, key string) error {
	if tx == nil {
		return fmt.Errorf("sqlstore: pending delete %s: a transaction is required", p.s.pendingTable())
	}
	return p.delete(ctx, tx, key)
}

func (p *PendingStore) delete(ctx context.Context, e execer, key string) error {
	t := p.s.pendingTable()
	if _, err := e.ExecContext(ctx, p.s.q(`DELETE FROM `+t+` WHERE idem_key = ?`), key); err != nil {
		return wrap("pending delete", t, err)
	}
	return nil
}

// List implements mwallet.PendingStore, oldest first. A record that does
// not decode is reported as an error naming its key, never skipped.
func (p *PendingStore) List(ctx context.Context) ([]mwallet.PendingRequest, error) {
	ctx, cancel := p.s.call(ctx)
	defer cancel()
	t := p.s.pendingTable()
	rows, err := p.s.db.QueryContext(ctx, `SELECT idem_key, record FROM `+t+` ORDER BY created_ms, idem_key`)
	if err != nil {
		return nil, wrap("pending list", t, err)
	}
	defer rows.Close()
	var out []mwallet.PendingRequest
	for rows.Next() {
		var key, raw string
		if err := rows.Scan(&key, &raw); err != nil {
			return nil, wrap("pending list", t, err)
		}
		var r mwallet.PendingRequest
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return nil, wrap("pending decode", t+" key "+key, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("pending list", t, err)
	}
	mwallet.SortPending(out)
	return out, nil
}
