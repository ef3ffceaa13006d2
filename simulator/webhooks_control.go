package simulator

import (
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

func (ctl *controlAPI) emitEvent(tx *kernel.Tx, typ, object, id, ext, status string, version int64, extra map[string]any) (string, error) {
	s := ctl.sim
	typ, object, id, ext = strings.TrimSpace(typ), strings.TrimSpace(object), strings.TrimSpace(id), strings.TrimSpace(ext)
	var missing []string
	for _, f := range []struct{ k, v string }{{"event_type", typ}, {"object", object}, {"id", id}} {
		if f.v == "" {
			missing = append(missing, f.k)
		}
	}
	if len(missing) > 0 {
		return "", errInvalidFields("required: "+strings.Join(missing, ", "), missing...)
	}
	if version < 0 {
		return "", errInvalidFields("status_version must not be negative", "status_version")
	}
	m := s.st.members.Get(ext)
	if m == nil {
		m = s.st.members.ByExternal(ext)
	}
	if m == nil {
		m = &member{ExternalID: ext}
	}
	n := len(s.st.events)
	recordEvent(tx, &s.st, typ, object, id, m, status, version, extra)
	if len(s.st.events) == n {
		return "", nil
	}
	return s.st.events[len(s.st.events)-1].ID, nil
}

// webhookEndpoints returns the configured endpoints in creation order.
func webhookEndpoints(tx *kernel.Tx, hooks *hookline.Line) []WebhookEndpoint {
	views := hooks.EndpointList(tx)
	out := make([]WebhookEndpoint, 0, len(views))
	for _, v := range views {
		out = append(out, webhookEndpointOf(v))
	}
	return out
}

// webhookDeliveries returns every delivery row, in creation order.
func webhookDeliveries(tx *kernel.Tx, hooks *hookline.Line) []WebhookDelivery {
	views := hooks.Deliveries(tx)
	out := make([]WebhookDelivery, 0, len(views))
	for _, v := range views {
		out = append(out, webhookDeliveryOf(v))
	}
	return out
}
