package sqlstore_test

import (
	"path/filepath"
	"testing"

	"github.com/mwallet/mwallet-go/internal/webhookcrash"
	"github.com/mwallet/mwallet-go/sqlstore"
)

// A receiver on the SQL Deduper killed with SIGKILL at each point of the
// handling of an event, then started again, on SQLite and on PostgreSQL:
// every event is processed, the killed one a second time only when the kill
// came after its effect and before the id was recorded as done.
func TestWebhookCrashSQLDeduper(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		rows := webhookcrash.Run(t, webhookcrash.Config{Name: d.name, Persistent: true, NewDeduper: func(t *testing.T) string {
			store, _ := newStore(t, d, sqlstore.Options{})
			if d.name == "sqlite" {
				return "sqlite " + storePath(t, store) + " " + store.Prefix()
			}
			return "postgres " + pg.dsn + " " + store.Prefix()
		}})
		t.Logf("crash table (%d rows):\n%s", len(rows), webhookcrash.Format(rows))
	})
}

// storePath is the SQLite file behind a store made by newStore.
func storePath(t *testing.T, s *sqlstore.Store) string {
	t.Helper()
	p, ok := sqlitePaths.Load(s)
	if !ok {
		t.Fatal("not a SQLite store of newStore")
	}
	return filepath.Clean(p.(string))
}
