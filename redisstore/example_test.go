package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/redisstore"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Each instance of a merchant backend builds its client and webhook handler
// on one Redis: one token exchange for the whole fleet, webhooks processed
// once whichever instance receives them, and writes interrupted by a crash
// finished at start-up.
func Example() {
	clientID := os.Getenv("MWALLET_CLIENT_ID")
	rdb := redis.NewClient(&redis.Options{
		Addr:     os.Getenv("REDIS_ADDR"),
		Username: os.Getenv("REDIS_USER"), // an ACL user limited to ~mwallet:*
		Password: os.Getenv("REDIS_PASSWORD"),
		// Short timeouts: a Redis outage must give errors, not hangs.
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		ContextTimeoutEnabled: true,
	})
	defer rdb.Close()
	store := redisstore.New(rdb, redisstore.Options{Prefix: "mwallet:" + clientID + ":"})

	client, err := mwclient.New(os.Getenv("MWALLET_BASE_URL"), mwallet.Credentials{
		ClientID:   clientID,
		APIKey:     mwallet.Secret(os.Getenv("MWALLET_API_KEY")),
		SigningKey: mwallet.Secret(os.Getenv("MWALLET_SIGNING_KEY")),
	},
		mwallet.WithTokenStore(store.Tokens()),
		mwallet.WithPendingStore(store.Pending()),
	)
	if err != nil {
		log.Fatal(err)
	}

	// Start-up: finish the writes a crashed instance left with an unknown
	// outcome. The service replays those that executed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pending, err := client.PendingRequests(ctx)
	if err != nil {
		log.Printf("pending requests: %v", err)
	}
	for _, p := range pending {
		var result json.RawMessage
		resp, err := client.Resume(ctx, p, &result)
		switch {
		case errors.Is(err, mwallet.ErrPendingExpired):
			log.Printf("reconcile by hand: %v", p) // older than the idempotency window
		case err != nil:
			log.Printf("resume %v: %v", p, err) // still unknown: kept for the next start
		default:
			log.Printf("resumed %s %s: replayed %v", p.Method, p.Path, resp.Replayed)
		}
	}

	// Webhooks: any instance may receive any delivery.
	http.Handle("/webhooks", webhooks.Handler(mwallet.Secret(os.Getenv("MWALLET_WEBHOOK_SECRET")),
		func(ctx context.Context, ev webhooks.Event) error {
			log.Printf("event %s %s", ev.EventType, ev.EventID)
			return nil
		},
		webhooks.WithDeduper(store.Deduper()),
	))
}
