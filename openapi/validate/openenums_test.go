package validate

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// The specification's versioning rule: "Status and kind fields may gain
// new values; clients store unknown values unchanged and do not default
// them." A published document that closes such a field (enum or const) makes
// a generated client refuse the next value the service adds. Every string
// field named status or kind (or ending in _status or _kind) of both
// documents is therefore open: its known values, if listed, are an
// x-extensible-enum. (CI's closed-world validation of the simulator turns
// them back into enums for its own checks.) Integer status fields are HTTP
// statuses, not the rule's.

// openFields lists every status and kind field of the documents with its
// known values ("" when the field lists none). A new field fails the test
// until it is added here, open.
var openFields = map[string]string{
	"mwallet.yaml components.schemas.Card.status":                                "unactivated active frozen pending closing closed expired replaced lost",
	"mwallet.yaml components.schemas.CardApplication.status":                     "pending_review submitted issued rejected",
	"mwallet.yaml components.schemas.CardApplicationDetail.status":               "pending_review submitted issued rejected",
	"mwallet.yaml components.schemas.CardLostRequest.kind":                       "",
	"mwallet.yaml components.schemas.CardLostResult.kind":                        "lost stolen",
	"mwallet.yaml components.schemas.CardLostResult.status":                      "unactivated active frozen pending closing closed expired replaced lost",
	"mwallet.yaml components.schemas.CardReplacement.status":                     "unactivated active frozen pending closing closed expired replaced lost",
	"mwallet.yaml components.schemas.CardStatusResult.status":                    "unactivated active frozen pending closing closed expired replaced lost",
	"mwallet.yaml components.schemas.CardTopUp.status":                           "processing completed",
	"mwallet.yaml components.schemas.CardTransaction.kind":                       "",
	"mwallet.yaml components.schemas.CardTransaction.status":                     "",
	"mwallet.yaml components.schemas.Deposit.status":                             "credited",
	"mwallet.yaml components.schemas.KYCState.status":                            "none pending_review approved rejected supplement_required",
	"mwallet.yaml components.schemas.Member.status":                              "active suspended blocklisted banned frozen",
	"mwallet.yaml components.schemas.Payee.status":                               "active",
	"mwallet.yaml components.schemas.QRPaymentOrder.status":                      "pending processing completed failed expired canceled refunded",
	"mwallet.yaml components.schemas.QuickBinding.status":                        "active compensated",
	"mwallet.yaml components.schemas.RemittanceCreateResult.status":              "pending reviewing platform_reviewing dispatching processing needs_reconfirm completed failed refunded",
	"mwallet.yaml components.schemas.RemittanceOrder.status":                     "pending reviewing platform_reviewing dispatching processing needs_reconfirm completed failed refunded",
	"mwallet.yaml components.schemas.VPApplication.status":                       "",
	"mwallet.yaml components.schemas.WebhookDelivery.status":                     "pending sent failed dead no_subscriber",
	"mwallet.yaml components.schemas.WebhookEvent.allOf.14.then.data.status":     "updated supplement_required",
	"mwallet.yaml components.schemas.WebhookEvent.allOf.15.then.data.status":     "compensated",
	"mwallet.yaml components.schemas.WebhookEvent.data.cardholder_review_status": "",
	"mwallet.yaml components.schemas.WebhookEvent.data.status":                   "",
	"mwallet.yaml POST /v1/cards/{id}/activate 200.allOf.1.status":               "active",
	"mwallet.yaml POST /v1/cards/{id}/close 200.allOf.1.status":                  "closing",
	"mwallet.yaml POST /v1/cards/{id}/freeze 200.allOf.1.status":                 "frozen",
	"mwallet.yaml POST /v1/cards/{id}/lost 200.allOf.1.status":                   "lost",
	"mwallet.yaml POST /v1/cards/{id}/unfreeze 200.allOf.1.status":               "active",
	"mwallet-sim.yaml components.schemas.DeliveryFailure.status":                 "pending dead failed no_subscriber",
	"mwallet-sim.yaml components.schemas.EmitEventRequest.status":                "",
	"mwallet-sim.yaml components.schemas.Fault.kind":                             "error error_after drop_before drop_after delay",
	"mwallet-sim.yaml components.schemas.MemberAnswer.status":                    "active suspended blocklisted banned frozen",
	"mwallet-sim.yaml components.schemas.SimCardTransaction.kind":                "",
	"mwallet-sim.yaml components.schemas.SimCardTransaction.status":              "",
	"mwallet-sim.yaml components.schemas.SimEvent.status":                        "",
	"mwallet-sim.yaml components.schemas.SimMember.status":                       "active suspended blocklisted banned frozen",
	"mwallet-sim.yaml components.schemas.SimMemberRequest.status":                "active suspended blocklisted banned frozen",
	"mwallet-sim.yaml components.schemas.SimMerchant.status":                     "active suspended frozen closed",
	"mwallet-sim.yaml components.schemas.SimMerchantRequest.status":              "active suspended frozen closed",
	"mwallet-sim.yaml components.schemas.SimWebhookDelivery.status":              "pending sent failed dead no_subscriber",
	"mwallet-sim.yaml GET /_sim/cards/topups/{id} 200.status":                    "",
	"mwallet-sim.yaml GET /_sim/cards/{id} 200.status":                           "",
	"mwallet-sim.yaml POST /_sim/cards/{id}/{action} request.anyOf.1.status":     "",
	"mwallet-sim.yaml POST /_sim/members/{id}/status request.status":             "active suspended blocklisted banned frozen",
}

// isStatusOrKind reports a field name the versioning rule covers.
func isStatusOrKind(name string) bool {
	return name == "status" || name == "kind" || strings.HasSuffix(name, "_status") || strings.HasSuffix(name, "_kind")
}

// TestStatusAndKindFieldsAreOpen walks every schema of both published
// documents (components, operations, webhooks) and checks that every status
// and kind field is open and is the one openFields lists.
func TestStatusAndKindFieldsAreOpen(t *testing.T) {
	t.Parallel()
	docs := loadDocs(t)
	got := map[string]string{}
	for _, d := range []struct {
		name string
		doc  *openapi3.T
	}{{"mwallet.yaml", docs.Business}, {"mwallet-sim.yaml", docs.Control}} {
		w := &fieldWalker{seen: map[*openapi3.Schema]bool{}, found: got, t: t}
		names := make([]string, 0, len(d.doc.Components.Schemas))
		for n := range d.doc.Components.Schemas {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			w.walk(d.doc.Components.Schemas[n], d.name+" components.schemas."+n)
		}
		paths := d.doc.Paths.InMatchingOrder()
		sort.Strings(paths)
		for _, p := range paths {
			for method, op := range d.doc.Paths.Value(p).Operations() {
				where := d.name + " " + method + " " + p
				if op.RequestBody != nil && op.RequestBody.Value != nil {
					for _, mt := range op.RequestBody.Value.Content {
						w.walk(mt.Schema, where+" request")
					}
				}
				for status, r := range op.Responses.Map() {
					if r.Value == nil {
						continue
					}
					for _, mt := range r.Value.Content {
						w.walk(mt.Schema, where+" "+status)
					}
				}
			}
		}
	}
	if diff := cmp.Diff(openFields, got); diff != "" {
		t.Errorf("the status and kind fields of the documents differ from openFields (-listed +documents):\n%s", diff)
	}
	t.Logf("%d status and kind fields, every one open", len(got))
}

// fieldWalker visits schemas once each, recording the status and kind
// fields it meets under the path of their first appearance.
type fieldWalker struct {
	t     *testing.T
	seen  map[*openapi3.Schema]bool
	found map[string]string
}

func (w *fieldWalker) walk(ref *openapi3.SchemaRef, where string) {
	if ref == nil || ref.Value == nil || w.seen[ref.Value] {
		return
	}
	s := ref.Value
	w.seen[s] = true
	props := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		props = append(props, n)
	}
	sort.Strings(props)
	for _, n := range props {
		p := s.Properties[n]
		if isStatusOrKind(n) && p != nil && p.Value != nil && !(p.Value.Type != nil && p.Value.Type.Is("integer")) {
			key := where + "." + n
			if _, dup := w.found[key]; !dup {
				if closed := closedBy(p.Value); closed != "" {
					w.t.Errorf("%s is closed (%s): the specification lets status and kind fields gain values; list them as x-extensible-enum", key, closed)
				}
				w.found[key] = strings.Join(knownValues(p.Value), " ")
			}
		}
		w.walk(p, where+"."+n)
	}
	w.walk(s.Items, where+".items")
	w.walk(s.AdditionalProperties.Schema, where+".additionalProperties")
	for name, list := range map[string]openapi3.SchemaRefs{"allOf": s.AllOf, "oneOf": s.OneOf, "anyOf": s.AnyOf} {
		for i, m := range list {
			w.walk(m, fmt.Sprintf("%s.%s.%d", where, name, i))
		}
	}
	w.walk(s.If, where+".if")
	w.walk(s.Then, strings.TrimSuffix(where, ".")+".then")
	w.walk(s.Else, where+".else")
}

// closedBy names what closes a field's schema (enum or const, on it or on
// a schema it combines), or "".
func closedBy(s *openapi3.Schema) string {
	switch {
	case len(s.Enum) > 0:
		return fmt.Sprintf("enum %v", s.Enum)
	case s.Const != nil:
		return fmt.Sprintf("const %v", s.Const)
	}
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, m := range list {
			if m != nil && m.Value != nil {
				if c := closedBy(m.Value); c != "" {
					return c
				}
			}
		}
	}
	return ""
}

// knownValues returns a field's x-extensible-enum values.
func knownValues(s *openapi3.Schema) []string {
	vals, _ := s.Extensions["x-extensible-enum"].([]any)
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// TestClosedByFindsClosedSets holds the walker's check to the forms a closed
// field takes: an enum, a const, and either inside an allOf member.
func TestClosedByFindsClosedSets(t *testing.T) {
	t.Parallel()
	enum := &openapi3.Schema{Enum: []any{"a", "b"}}
	konst := &openapi3.Schema{Const: "a"}
	open := &openapi3.Schema{Extensions: map[string]any{"x-extensible-enum": []any{"a", "b"}}}
	for _, c := range []struct {
		name   string
		s      *openapi3.Schema
		closed bool
	}{
		{"enum", enum, true},
		{"const", konst, true},
		{"enum in allOf", &openapi3.Schema{AllOf: openapi3.SchemaRefs{{Value: open}, {Value: enum}}}, true},
		{"const in oneOf", &openapi3.Schema{OneOf: openapi3.SchemaRefs{{Value: konst}}}, true},
		{"x-extensible-enum", open, false},
		{"plain string", &openapi3.Schema{}, false},
	} {
		if got := closedBy(c.s) != ""; got != c.closed {
			t.Errorf("%s: closed = %v, want %v", c.name, got, c.closed)
		}
	}
}
