package remittances

import (
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// vpApplication is a member's VP application. The simulator derives it from
// the member's KYC profile: approved when the member holds level 1 or more,
// in review otherwise; none without a profile.
type vpApplication struct {
	ID        string
	CreatedAt time.Time
}

// queryVPApplications answers POST /v1/remit/vp/applications/query.
func (l *Line) queryVPApplications(c *api.Request) (int, any, error) {
	var in struct {
		Members []string `json:"members"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	if len(in.Members) < 1 || len(in.Members) > 100 {
		return 0, nil, api.InvalidRequest("members must hold 1 to 100 identifiers")
	}
	for _, q := range in.Members {
		if strings.TrimSpace(q) == "" {
			return 0, nil, api.InvalidRequest("members must be non-empty strings")
		}
	}
	items := make([]map[string]any, 0, len(in.Members))
	for _, q := range in.Members {
		v := strings.TrimSpace(q)
		var m *api.Member
		if strings.HasPrefix(v, "mem_") {
			m = l.host.Member(c.Tx, v)
		} else {
			m = l.host.MemberByExternal(c.Tx, v)
		}
		if m == nil || (m.MerchantID != "" && m.MerchantID != c.Tx.MerchantID()) {
			// Unknown and foreign members get the same answer.
			items = append(items, map[string]any{"query": q, "error": "member_not_found", "application": nil})
			continue
		}
		item := map[string]any{"query": q, "member_id": m.ID, "external_member_id": m.ExternalID, "application": nil, "stage": "not_applied"}
		if l.host.HasKYCProfile(c.Tx, m) {
			app, ok := l.st.vpApps.Get(c.Tx, m.ID)
			if !ok {
				app = vpApplication{ID: "vpa_" + c.Tx.NewUUID(), CreatedAt: m.CreatedAt}
				l.st.vpApps.Put(c.Tx, m.ID, app)
			}
			status, stage, reviewed := "pending_review", "review", ""
			if m.KYCLevel >= 1 {
				status, stage, reviewed = "approved", "active", app.CreatedAt.UTC().Format(time.RFC3339)
			}
			item["application"] = map[string]any{"id": app.ID, "status": status, "reviewed_at": reviewed, "created_at": app.CreatedAt.UTC().Format(time.RFC3339)}
			item["stage"] = stage
		}
		items = append(items, item)
	}
	return http.StatusOK, map[string]any{"items": items}, nil
}
