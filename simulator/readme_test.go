package simulator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestReadmeListsEveryAction keeps the control API guide (guide/control-api.md) honest: every registered control
// action is mentioned, by its collection and its action name, and every core
// control endpoint appears.
func TestReadmeListsEveryAction(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("guide/control-api.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	sim := simtest.Start(t)
	for _, key := range sim.Actions() {
		i := strings.LastIndex(key, "/")
		collection, action := key[:i], key[i+1:]
		if !strings.Contains(readme, collection+"/") || !strings.Contains(readme, action) {
			t.Errorf("guide/control-api.md does not mention the action %s (POST /_sim/%s/{id}/%s)", key, collection, action)
		}
	}
	for _, ep := range []string{
		"GET /_sim/credentials", "GET /_sim/clock", "POST /_sim/clock", "POST /_sim/members", "GET /_sim/members/{id}",
		"POST /_sim/merchant", "POST /_sim/keys", "POST /_sim/keys/{client_id}", "POST /_sim/faults", "DELETE /_sim/faults",
		"GET /_sim/requests", "POST /_sim/outcomes", "POST /_sim/step-up/{challenge_id}/complete",
		"POST /_sim/{collection}/{id}/{action}",
	} {
		if !strings.Contains(readme, ep) {
			t.Errorf("guide/control-api.md does not list %s", ep)
		}
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
