package webhookcrash_test

import (
	"os"
	"testing"

	"github.com/mwallet/mwallet-go/internal/webhookcrash"
	"github.com/mwallet/mwallet-go/webhooks"
)

func TestMain(m *testing.M) {
	webhookcrash.MaybeReceive(func(string) (webhooks.Deduper, error) {
		return webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{}), nil
	})
	os.Exit(m.Run())
}

// A MemoryDeduper dies with its process: every event is still processed
// (at least once), but the killed one is processed again after a restart
// when the kill came after its effect.
func TestWebhookCrashMemoryDeduper(t *testing.T) {
	t.Parallel()
	rows := webhookcrash.Run(t, webhookcrash.Config{Name: "memory", NewDeduper: func(*testing.T) string { return "" }})
	t.Logf("crash table (%d rows):\n%s", len(rows), webhookcrash.Format(rows))
}
