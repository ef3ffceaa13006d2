package stepup

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// fakeHost holds at most max challenges.
type fakeHost struct {
	max int
}

func (h *fakeHost) Room(_ *kernel.Tx, held int, _ time.Time) error {
	if held >= h.max {
		return api.NewErr("service_unavailable", "full")
	}
	return nil
}

// TestChallengeLifecycle: a challenge is required, completed by the end
// user, used once for its member and action only, and swept once expired.
func TestChallengeLifecycle(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	h := &fakeHost{max: 2}
	var l Line
	l.Init(svc.Kernel(), h)
	now := svc.Clock
	req := func(memberID, stepUp string) *api.Request {
		return &api.Request{Tx: tx, Now: now, Member: &api.Member{ID: memberID}, StepUp: stepUp, Header: http.Header{}}
	}
	challengeOf := func(err error) string {
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != "step_up_required" {
			t.Fatalf("want step_up_required, got %v", err)
		}
		return ae.Extra["challenge_id"].(string)
	}
	pay := api.ActionDigest("qrpay", "mem_1", "code")
	id := challengeOf(l.Require(req("mem_1", ""), pay))
	if err := l.Require(req("mem_1", id), pay); err == nil {
		t.Fatal("a challenge the end user did not complete was accepted")
	}
	if l.Len(tx) != 2 {
		t.Fatalf("%d challenges, want 2", l.Len(tx))
	}
	if err := l.Require(req("mem_1", ""), pay); err == nil || errors.As(err, new(*api.Error)) && err.(*api.Error).Code != "service_unavailable" {
		t.Fatalf("a full store: %v", err)
	}
	if err := l.Complete(tx, id); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, member, action string
		ok                   bool
	}{
		{"another member", "mem_2", pay, false},
		{"another action", "mem_1", api.ActionDigest("card.pin", "crd_1"), false},
		{"its member and action", "mem_1", pay, true},
		{"used once", "mem_1", pay, false},
	} {
		h.max = 10
		err := l.Require(req(tt.member, id), tt.action)
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if ch, ok := l.Get(tx, id); !ok || !ch.Completed || !ch.Used {
		t.Errorf("Get = %+v, %v", ch, ok)
	}
	if err := l.Complete(tx, "nope"); err == nil {
		t.Error("completed an unknown challenge")
	}
	l.Sweep(tx, id, now) // not yet expired
	if _, ok := l.Get(tx, id); !ok {
		t.Error("swept before its expiry")
	}
	svc.Clock = now.Add(TTL)
	if err := l.Complete(tx, id); err == nil {
		t.Error("completed an expired challenge")
	}
	l.Sweep(tx, id, svc.Clock)
	if _, ok := l.Get(tx, id); ok {
		t.Error("an expired challenge survived the sweep")
	}
	if len(svc.Expiries) != l.Len(tx)+1 || svc.Expiries[0] != ExpiryWindow+" "+id {
		t.Errorf("expiries %q asked for %d challenges issued, the first %s", svc.Expiries, l.Len(tx)+1, id)
	}
}
