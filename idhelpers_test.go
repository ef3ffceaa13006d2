package mwallet_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The id helpers of the product lines have one shape, func(string) string:
// they add the REST prefix to an id given with or without it (an event's
// data.id), drop surrounding spaces and leave an empty id empty; checking a
// malformed id is the job of the methods that take one. They agree with
// webhooks.Data.RESTID for the same object.
func TestIDHelpersHaveOneShape(t *testing.T) {
	t.Parallel()
	helpers := []struct {
		name   string
		fn     func(string) string
		prefix string
		object webhooks.ObjectKind
	}{
		{"qrpay.OrderID", qrpay.OrderID, "qrp_", webhooks.ObjectQRPayOrder},
		{"remittance.OrderID", remittance.OrderID, "rmt_", webhooks.ObjectRemittance},
		{"cards.CardID", cards.CardID, "crd_", webhooks.ObjectCard},
		{"members.ID", members.ID, "mem_", webhooks.ObjectMember},
	}
	// deposits.ID has the shape too but another job: it builds the id from a
	// business reference, which may itself start with dep_, so it always
	// prefixes and keeps the reference exactly.
	if got := reflect.TypeOf(deposits.ID).String(); got != "func(string) string" {
		t.Errorf("deposits.ID is %s", got)
	}
	if got := deposits.ID("dep_1"); got != "dep_dep_1" {
		t.Errorf("deposits.ID(dep_1) = %q", got)
	}
	for _, h := range helpers {
		if got := reflect.TypeOf(h.fn).String(); got != "func(string) string" {
			t.Errorf("%s is %s", h.name, got)
		}
		for _, tt := range []struct{ in, want string }{
			{"8c1f0e5e", h.prefix + "8c1f0e5e"},
			{h.prefix + "8c1f0e5e", h.prefix + "8c1f0e5e"},
			{"  8c1f0e5e ", h.prefix + "8c1f0e5e"},
			{"", ""},
			{"   ", ""},
		} {
			if diff := cmp.Diff(tt.want, h.fn(tt.in)); diff != "" {
				t.Errorf("%s(%q) (-want +got):\n%s", h.name, tt.in, diff)
			}
			if tt.in == "" || tt.want == "" {
				continue
			}
			if rest, ok := (webhooks.Data{Object: h.object, ID: tt.in}).RESTID(); !ok || rest != h.fn(tt.in) {
				t.Errorf("%s(%q) = %q but RESTID gives %q, %v", h.name, tt.in, h.fn(tt.in), rest, ok)
			}
		}
	}
}
