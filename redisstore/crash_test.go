package redisstore_test

import (
	"os"
	"testing"

	"github.com/mwallet/mwallet-go/internal/webhookcrash"
	"github.com/mwallet/mwallet-go/redisstore"
)

// A receiver on the Redis Deduper killed with SIGKILL at each point of the
// handling of an event, then started again: every event is processed, the
// killed one a second time only when the kill came after its effect and
// before the id was recorded as done.
func TestWebhookCrashRedisDeduper(t *testing.T) {
	t.Parallel()
	newRedis(t) // skips without REDIS_URL
	rows := webhookcrash.Run(t, webhookcrash.Config{Name: "redis", Persistent: true, NewDeduper: func(t *testing.T) string {
		store, _ := newStore(t, redisstore.Options{})
		return os.Getenv("REDIS_URL") + " " + store.Prefix()
	}})
	t.Logf("crash table (%d rows):\n%s", len(rows), webhookcrash.Format(rows))
}
