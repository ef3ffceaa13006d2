package control

import "github.com/mwallet/mwallet-go/simulator/internal/api"

// List is the one shape of a control list: the business API's list
// envelope, {"data": [...], "next_cursor": null, "has_more": false}. The
// control lists are whole (the recording's steps page with ?after=).
func List[T any](items []T) api.ListEnvelope {
	if items == nil {
		items = []T{}
	}
	return api.ListEnvelope{Data: items}
}
