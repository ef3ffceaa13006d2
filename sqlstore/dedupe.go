package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
)

// Deduper keeps the claims and done records of webhook event ids in one
// table. It implements webhooks.Deduper: a claim is one row with state
// "claimed", its token and the lease end; a processed id is a row with state
// "done" and its expiry. Claim is one INSERT ... ON CONFLICT DO UPDATE ...
// WHERE the row's time is over, so concurrent claims of one id (from any
// number of instances) see exactly one winner; the lease is compared with
// the handler's clock passed in.
type Deduper struct{ s *Store }

var _ webhooks.Deduper = (*Deduper)(nil)

// Claim implements webhooks.Deduper.
func (d *Deduper) Claim(ctx context.Context, eventID string, now time.Time, lease time.Duration) (webhooks.Claim, error) {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	t := d.s.eventsTable()
	token := webhooks.NewClaimToken()
	until := now.Add(lease).UnixMilli()
	// A row deleted by a Release between the two statements makes the
	// second find nothing: claim again.
	for range 3 {
		var got string
		err := d.s.db.QueryRowContext(ctx, d.s.q(`INSERT INTO `+t+` (event_id, state, token, until_ms) VALUES (?, 'claimed', ?, ?)
ON CONFLICT (event_id) DO UPDATE SET state = 'claimed', token = excluded.token, until_ms = excluded.until_ms
WHERE `+t+`.until_ms <= ?
RETURNING token`), eventID, token, until, now.UnixMilli()).Scan(&got)
		switch {
		case err == nil && got == token:
			return webhooks.Claim{State: webhooks.ClaimAcquired, Token: token, Until: time.UnixMilli(until)}, nil
		case err == nil:
			return webhooks.Claim{}, wrap("dedupe claim", t, fmt.Errorf("claimed with token %q, want %q", got, token))
		case !errors.Is(err, sql.ErrNoRows):
			return webhooks.Claim{}, wrap("dedupe claim", t, err)
		}
		var state string
		var untilMs int64
		err = d.s.db.QueryRowContext(ctx, d.s.q(`SELECT state, until_ms FROM `+t+` WHERE event_id = ?`), eventID).Scan(&state, &untilMs)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return webhooks.Claim{}, wrap("dedupe claim", t, err)
		case state == "done":
			return webhooks.Claim{State: webhooks.ClaimDone}, nil
		}
		return webhooks.Claim{State: webhooks.ClaimHeld, Until: time.UnixMilli(untilMs)}, nil
	}
	return webhooks.Claim{}, wrap("dedupe claim", t, errors.New("the row kept changing; try again"))
}

// Done implements webhooks.Deduper: the id is done until now + DedupeTTL.
func (d *Deduper) Done(ctx context.Context, eventID string, now time.Time) error {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	return d.done(ctx, d.s.db, eventID, now)
}

// DoneTx records eventID as done inside tx, the transaction in which the
// webhook function applies the event to your own rows. The effect and the
// done record then commit together: a process killed at any point either
// applied the event and recorded it (the retry is a duplicate) or did
// neither (the retry processes it), so the event is processed exactly once.
// The Handler's own Done after the function returns then finds it done and
// changes nothing.
func (d *Deduper) DoneTx(ctx context.Context, tx *sql.Tx, eventID string, now time.Time) error {
	if tx == nil {
		return fmt.Errorf("sqlstore: dedupe done %s: a transaction is required", d.s.eventsTable())
	}
	return d.done(ctx, tx, eventID, now)
}

func (d *Deduper) done(ctx context.Context, e execer, eventID string, now time.Time) error {
	t := d.s.eventsTable()
	_, err := e.ExecContext(ctx, d.s.q(`INSERT INTO `+t+` (event_id, state, token, until_ms) VALUES (?, 'done', '', ?)
ON CONFLICT (event_id) DO UPDATE SET state = 'done', token = '', until_ms = excluded.until_ms`),
		eventID, now.Add(d.s.dedupeTTL).UnixMilli())
	if err != nil {
		return wrap("dedupe done", t, err)
	}
	return nil
}

// Release implements webhooks.Deduper: it deletes the row while it holds
// the claim of token.
func (d *Deduper) Release(ctx context.Context, eventID, token string) error {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	t := d.s.eventsTable()
	if _, err := d.s.db.ExecContext(ctx, d.s.q(`DELETE FROM `+t+` WHERE event_id = ? AND state = 'claimed' AND token = ?`), eventID, token); err != nil {
		return wrap("dedupe release", t, err)
	}
	return nil
}

// Sweep deletes the rows whose time is over at now (done ids past their
// retention, lapsed claims) and returns how many. Claim reuses such rows
// anyway; call Sweep now and then (say hourly) to keep the table small.
func (d *Deduper) Sweep(ctx context.Context, now time.Time) (int64, error) {
	ctx, cancel := d.s.call(ctx)
	defer cancel()
	t := d.s.eventsTable()
	res, err := d.s.db.ExecContext(ctx, d.s.q(`DELETE FROM `+t+` WHERE until_ms <= ?`), now.UnixMilli())
	if err != nil {
		return 0, wrap("dedupe sweep", t, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrap("dedupe sweep", t, err)
	}
	return n, nil
}
