package webhooks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mwallet/mwallet-go/webhooks"
)

func TestDecodeEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want webhooks.Event
	}{
		{
			name: "card status",
			body: `{"event_id":"evt_1","event_type":"card.status.updated","created_at":"2026-01-01T00:00:05Z","merchant_id":"mch_1","livemode":false,
				"data":{"object":"card","id":"c1","external_member_id":"member-1","status":"active","status_version":3}}`,
			want: webhooks.Event{EventID: "evt_1", EventType: webhooks.EventCardStatusUpdated, CreatedAt: time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC),
				MerchantID: "mch_1", Data: webhooks.Data{Object: webhooks.ObjectCard, ID: "c1", ExternalMemberID: "member-1", Status: "active", StatusVersion: 3}},
		},
		{
			name: "quick kyc compensated with extras and a large version",
			body: `{"event_id":"evt_2","event_type":"kyc.quick.compensated","created_at":"2026-01-01T00:00:00.5Z","merchant_id":"mch_1","livemode":true,
				"data":{"object":"quick_kyc_binding","id":"qkb_9","external_member_id":"m","status":"compensated","status_version":1767225600123,
				"compensation_source":"auto","application_id":"cap_7"}}`,
			want: webhooks.Event{EventID: "evt_2", EventType: webhooks.EventKYCQuickCompensated, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 5e8, time.UTC),
				MerchantID: "mch_1", Livemode: true, Data: webhooks.Data{Object: webhooks.ObjectQuickKYCBinding, ID: "qkb_9", ExternalMemberID: "m",
					Status: "compensated", StatusVersion: 1767225600123, CompensationSource: webhooks.CompensationAuto, ApplicationID: "cap_7"}},
		},
		{
			name: "unknown type and kind kept verbatim",
			body: `{"event_id":"evt_3","event_type":"card.future.thing","created_at":"2026-01-01T00:00:00Z","merchant_id":"mch_1","livemode":false,
				"data":{"object":"gizmo","id":"g1","external_member_id":"m","status":"weird","status_version":0,"new_field":"x"}}`,
			want: webhooks.Event{EventID: "evt_3", EventType: "card.future.thing", CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
				MerchantID: "mch_1", Data: webhooks.Data{Object: "gizmo", ID: "g1", ExternalMemberID: "m", Status: "weird"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := webhooks.DecodeEvent([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(webhooks.Data{}, "Raw")); diff != "" {
				t.Errorf("DecodeEvent() mismatch (-want +got):\n%s", diff)
			}
			if !json.Valid(got.Data.Raw) {
				t.Errorf("Data.Raw = %q, not JSON", got.Data.Raw)
			}
		})
	}
}

func TestDataExtraAndRoundTrip(t *testing.T) {
	t.Parallel()
	body := `{"event_id":"evt_3","event_type":"card.future.thing","created_at":"2026-01-01T00:00:00Z","merchant_id":"mch_1","livemode":false,` +
		`"data":{"object":"gizmo","id":"g1","external_member_id":"m","status":"weird","status_version":0,"new_field":"x"}}`
	ev, err := webhooks.DecodeEvent([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if ev.EventType.Known() || ev.Data.Object.Known() {
		t.Errorf("Known() = %v, %v for unknown values", ev.EventType.Known(), ev.Data.Object.Known())
	}
	v, ok := ev.Data.Extra("new_field")
	if !ok || string(v) != `"x"` {
		t.Errorf("Extra(new_field) = %s, %v", v, ok)
	}
	if _, ok := ev.Data.Extra("absent"); ok {
		t.Error("Extra(absent) reported present")
	}
	re, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	back, err := webhooks.DecodeEvent(re)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ev, back, cmpopts.IgnoreFields(webhooks.Data{}, "Raw")); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
	if v, ok := back.Data.Extra("new_field"); !ok || string(v) != `"x"` {
		t.Errorf("extra lost on round trip: %s", re)
	}
}

func TestDecodeEventMalformed(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"not json":          `nope`,
		"empty":             ``,
		"array":             `[]`,
		"no event_id":       `{"event_type":"member.created","data":{}}`,
		"no event_type":     `{"event_id":"evt_1","data":{}}`,
		"no data":           `{"event_id":"evt_1","event_type":"member.created"}`,
		"data null":         `{"event_id":"evt_1","event_type":"member.created","data":null}`,
		"version not int":   `{"event_id":"evt_1","event_type":"member.created","data":{"status_version":"1"}}`,
		"version fraction":  `{"event_id":"evt_1","event_type":"member.created","data":{"status_version":1.5}}`,
		"bad created_at":    `{"event_id":"evt_1","event_type":"member.created","created_at":"yesterday","data":{}}`,
		"trailing data":     `{"event_id":"evt_1","event_type":"member.created","data":{}} {}`,
		"livemode a string": `{"event_id":"evt_1","event_type":"member.created","livemode":"false","data":{}}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := webhooks.DecodeEvent([]byte(body))
			if !errors.Is(err, webhooks.ErrMalformedEvent) {
				t.Errorf("DecodeEvent(%q) = %v, want ErrMalformedEvent", body, err)
			}
		})
	}
}

func TestConstructEvent(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event_id":"evt_1","event_type":"member.created","created_at":"2026-01-01T12:00:00Z","merchant_id":"mch_1","livemode":false,"data":{"object":"member","id":"u1","external_member_id":"member-1","status":"active","status_version":0}}`)
	clock := webhooks.WithClock(func() time.Time { return testNow })
	ev, err := webhooks.ConstructEvent(body, header(testSecret, testNow.Unix(), body), testSecret, clock)
	if err != nil {
		t.Fatal(err)
	}
	if ev.EventID != "evt_1" || ev.EventType != webhooks.EventMemberCreated {
		t.Errorf("ConstructEvent() = %+v", ev)
	}
	if _, err := webhooks.ConstructEvent(body, header("wrong", testNow.Unix(), body), testSecret, clock); !errors.Is(err, webhooks.ErrSignatureMismatch) {
		t.Errorf("ConstructEvent(wrong secret) = %v, want ErrSignatureMismatch", err)
	}
	bad := []byte(`{"event_id":""}`)
	if _, err := webhooks.ConstructEvent(bad, header(testSecret, testNow.Unix(), bad), testSecret, clock); !errors.Is(err, webhooks.ErrMalformedEvent) {
		t.Errorf("ConstructEvent(bad body) = %v, want ErrMalformedEvent", err)
	}
}

func TestEventTypes(t *testing.T) {
	t.Parallel()
	types := webhooks.EventTypes()
	if len(types) != 27 {
		t.Fatalf("EventTypes() has %d types, want 27", len(types))
	}
	seen := map[webhooks.EventType]bool{}
	for _, ty := range types {
		if !ty.Known() || seen[ty] {
			t.Errorf("type %q: Known() = %v, duplicate = %v", ty, ty.Known(), seen[ty])
		}
		seen[ty] = true
	}
	var async []string
	var constant []string
	for _, ty := range types {
		if ty.Asynchronous() {
			async = append(async, string(ty))
		}
		if ty.AlwaysConstantVersion() {
			constant = append(constant, string(ty))
		}
	}
	wantAsync := []string{"kyc.result.updated", "kyc.quick.compensated", "deposit.credited", "withdrawal.order.locked",
		"withdrawal.order.completed", "withdrawal.order.failed", "card.3ds.received", "card.transaction.updated", "merchant.balance.waterline"}
	if diff := cmp.Diff(wantAsync, async); diff != "" {
		t.Errorf("Asynchronous (-want +got):\n%s", diff)
	}
	wantConstant := []string{"member.created", "member.suspended", "kyc.result.updated", "deposit.credited", "exchange.order.executed"}
	if diff := cmp.Diff(wantConstant, constant); diff != "" {
		t.Errorf("AlwaysConstantVersion (-want +got):\n%s", diff)
	}
	if webhooks.EventType("member.Created").Known() {
		t.Error("event types are case-sensitive")
	}
}

func TestConstantVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ     webhooks.EventType
		version int64
		want    bool
	}{
		{webhooks.EventMemberCreated, 0, true},
		{webhooks.EventMemberSuspended, 0, true},
		{webhooks.EventKYCResultUpdated, 0, true},
		{webhooks.EventDepositCredited, 0, true},
		{webhooks.EventExchangeOrderExecuted, 0, true},
		{webhooks.EventEarnOrderSettled, 0, true},  // flexible interest
		{webhooks.EventEarnOrderSettled, 4, false}, // fixed-term maturity
		{webhooks.EventKYCQuickCompensated, 1767225600123, false},
		{webhooks.EventCardStatusUpdated, 2, false},
		{webhooks.EventQRPayOrderCompleted, 0, false}, // a real version, even if 0
		{"future.event", 0, true},
		{"future.event", 3, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.typ, tc.version), func(t *testing.T) {
			t.Parallel()
			ev := webhooks.Event{EventType: tc.typ, Data: webhooks.Data{StatusVersion: tc.version}}
			if got := ev.ConstantVersion(); got != tc.want {
				t.Errorf("ConstantVersion() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestObjectKindKnown(t *testing.T) {
	t.Parallel()
	kinds := "member kyc quick_kyc_binding deposit withdrawal remittance qrpay_order card_application card card_topup card_withdrawal earn_order exchange_order"
	for _, k := range strings.Fields(kinds) {
		if !webhooks.ObjectKind(k).Known() {
			t.Errorf("ObjectKind(%q).Known() = false", k)
		}
	}
	if webhooks.ObjectKind("Card").Known() {
		t.Error("kinds are case-sensitive")
	}
	if !webhooks.CompensationAdmin.Known() || webhooks.CompensationSource("ops").Known() {
		t.Error("CompensationSource.Known")
	}
}
