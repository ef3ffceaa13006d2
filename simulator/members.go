package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
)

// registerMembers serves GET /v1/members/{id} and the member control actions.
// It is called from registerKYC, the member-facing product line.
func (ctl *controlAPI) registerMembers() {
	s := ctl.sim
	for _, e := range s.st.members.Endpoints() {
		s.wiring.gw.register(e)
	}
	ctl.registerActions([]controlDecl{
		{action: "members/status", withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			var in struct {
				Status string `json:"status"`
			}
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			m, err := s.st.members.SetStatus(tx, id, in.Status)
			if err != nil {
				return nil, err
			}
			return members.JSON(m), nil
		}},
	})
}
