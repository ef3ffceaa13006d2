package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

var emittedLine = regexp.MustCompile(`(?m)^Event (\S+) emitted: (evt_\S+)$`)

// runTrigger runs "mwallet-sim trigger" against sim and returns the event
// the command reports, as the simulator recorded it.
func runTrigger(t *testing.T, sim *simulator.Simulator, args ...string) (simulator.Event, string) {
	t.Helper()
	var out bytes.Buffer
	args = append([]string{"trigger"}, append(args, "-base-url", sim.URL())...)
	if err := run(context.Background(), args, &out, io.Discard, nil); err != nil {
		t.Fatalf("trigger %q: %v\n%s", args, err, out.String())
	}
	m := emittedLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no event line in:\n%s", out.String())
	}
	for _, e := range sim.Events.List() {
		if e.ID == m[2] {
			if e.Type != m[1] {
				t.Errorf("event %s has type %s, output says %s", e.ID, e.Type, m[1])
			}
			return e, out.String()
		}
	}
	t.Fatalf("event %s is not in sim.Events()\n%s", m[2], out.String())
	return simulator.Event{}, ""
}

func TestTriggerCoversEveryEventType(t *testing.T) {
	t.Parallel()
	var want, got []string
	for _, e := range webhooks.EventTypes() {
		want = append(want, string(e))
	}
	for n := range recipes {
		got = append(got, n)
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trigger recipes differ from the contract's event types (-contract +trigger):\n%s", diff)
	}
	if len(got) != 27 {
		t.Errorf("%d recipes, want 27", len(got))
	}
}

func TestTriggerEmitsEveryEventType(t *testing.T) {
	t.Parallel()
	for _, typ := range webhooks.EventTypes() {
		typ := string(typ)
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			ev, out := runTrigger(t, sim, typ)
			if ev.Type != typ {
				t.Errorf("event type %s, want %s", ev.Type, typ)
			}
			synthetic := strings.Contains(out, "synthetic: the simulator has no product flow")
			if synthetic == recipes[typ].flow {
				t.Errorf("flow %v but output synthetic %v:\n%s", recipes[typ].flow, synthetic, out)
			}
			if !strings.Contains(out, "   1. ") {
				t.Errorf("no numbered steps:\n%s", out)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTriggerFlowsUseTheBusinessAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		paths []string // business requests the flow must make, in order
	}{
		{"qrpay.order.refunded", []string{"/v1/connect/token", "/v1/qrpay/decode", "/v1/qrpay/quotes", "/v1/qrpay/payments", "/v1/qrpay/payments"}},
		{"remittance.order.completed", []string{"/v1/connect/token", "/v1/remit/payees", "/v1/remittances"}},
		{"card.topup.credited", []string{"/v1/connect/token", "/v1/cards/applications"}},
		{"deposit.credited", []string{"/v1/connect/token", "/v1/deposits"}},
		{"card.withdraw.completed", []string{"/v1/connect/token", "/v1/cards/applications"}},
	}
	for _, tc := range tests {
		t.Run(tc.event, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			ev, _ := runTrigger(t, sim, tc.event)
			var paths []string
			for _, r := range sim.Requests.List() {
				if r.Status >= 400 && r.Code != "step_up_required" {
					t.Errorf("%s %s answered %d %s", r.Method, r.Path, r.Status, r.Code)
				}
				paths = append(paths, r.Path)
			}
			if len(paths) < len(tc.paths) {
				t.Fatalf("requests %q, want at least %q", paths, tc.paths)
			}
			if diff := cmp.Diff(tc.paths, paths[:len(tc.paths)]); diff != "" {
				t.Errorf("first requests (-want +got):\n%s", diff)
			}
			if ev.ExternalMemberID == simulator.DefaultMemberExternalID || !strings.HasPrefix(ev.ExternalMemberID, "trigger-") {
				t.Errorf("event member %q, want a new trigger- member", ev.ExternalMemberID)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTriggerForAnExistingMember(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	ev, out := runTrigger(t, sim, "qrpay.order.completed", "-member", simulator.DefaultMemberExternalID)
	if ev.ExternalMemberID != simulator.DefaultMemberExternalID || ev.Status != "completed" {
		t.Errorf("event %+v", ev)
	}
	if strings.Contains(out, "created member") {
		t.Errorf("created a member although -member was given:\n%s", out)
	}
	// The flag may also come before the event type.
	ev, _ = runTrigger(t, sim, "-member", simulator.DefaultMemberExternalID, "card.application.submitted")
	if ev.ExternalMemberID != simulator.DefaultMemberExternalID {
		t.Errorf("event member %q", ev.ExternalMemberID)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestTriggerMerchantHosted(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t, simulator.WithModel(simulator.MerchantHosted))
	for _, typ := range []string{"qrpay.order.completed", "card.topup.credited", "remittance.order.completed"} {
		if ev, _ := runTrigger(t, sim, typ); ev.Type != typ {
			t.Errorf("%s: got %s", typ, ev.Type)
		}
	}
	err := run(context.Background(), []string{"trigger", "deposit.credited", "-base-url", sim.URL()}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "platform_hosted") {
		t.Errorf("deposit.credited on merchant_hosted: %v", err)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestTriggerArguments(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	tests := []struct {
		name string
		args []string
		want string // part of the error
	}{
		{"no event", []string{"trigger"}, "an event type is required"},
		{"unknown event", []string{"trigger", "charge.succeeded"}, "unknown event type"},
		{"extra argument", []string{"trigger", "member.created", "again"}, "unexpected arguments"},
		{"no simulator", []string{"trigger", "member.created", "-base-url", "http://127.0.0.1:1"}, "credentials"},
		{"unknown flag", []string{"trigger", "member.created", "-nope"}, "-nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), tc.args, io.Discard, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	var list bytes.Buffer
	if err := run(context.Background(), []string{"trigger", "-list"}, &list, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(list.String()), "\n")
	synthetic := 0
	for _, l := range lines {
		if strings.Contains(l, " synthetic ") {
			synthetic++
		}
	}
	if len(lines) != 27 || synthetic != 7 {
		t.Errorf("-list: %d lines, %d synthetic; want 27 and 7:\n%s", len(lines), synthetic, list.String())
	}
	if got := len(sim.Events.List()); got != 1 {
		t.Errorf("failed triggers recorded events: %d, want only the fixture's member.created", got)
	}
}

// TestTriggerWaitsOnTheSimulatorsClock: a wait the simulator asks for (here
// the Retry-After of a spent write quota) is a wait on its clock. Against a
// clock that moves only when told, trigger stops at once with the reason
// and leaves the clock where it was; with -advance-clock it moves the
// simulator's clock by the wait and goes on.
func TestTriggerWaitsOnTheSimulatorsClock(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	if err := sim.Merchant.SetWriteQuota(1); err != nil {
		t.Fatal(err)
	}
	before := sim.Clock.Now()
	var out bytes.Buffer
	err := run(context.Background(), []string{"trigger", "qrpay.order.completed", "-url", sim.URL()}, &out, io.Discard, nil)
	var wait *simWaitError
	if !errors.As(err, &wait) || wait.wait <= 0 || !strings.Contains(err.Error(), "-advance-clock") {
		t.Fatalf("trigger with a spent write quota: %v, want a *simWaitError naming -advance-clock\n%s", err, out.String())
	}
	if now := sim.Clock.Now(); !now.Equal(before) {
		t.Errorf("the simulator's clock moved from %s to %s without -advance-clock", before, now)
	}

	out.Reset()
	if err := run(context.Background(), []string{"trigger", "qrpay.order.completed", "-url", sim.URL(), "-advance-clock"}, &out, io.Discard, nil); err != nil {
		t.Fatalf("trigger -advance-clock: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "moved the simulator's clock") || !emittedLine.MatchString(out.String()) {
		t.Errorf("trigger -advance-clock output:\n%s", out.String())
	}
	if now := sim.Clock.Now(); !now.After(before) {
		t.Errorf("the simulator's clock did not move with -advance-clock: %s", now)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
