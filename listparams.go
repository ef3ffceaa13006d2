package mwallet

import "github.com/mwallet/mwallet-go/internal/api"

// ListParams are the pagination parameters of list methods that take them
// (for example client.Remittances.Payees, client.Remittances.List,
// client.KYC.QuickBindings, client.Webhooks.List): Limit (0 means the
// service default of 20; at most 100) and Cursor (a previous next_cursor;
// empty starts from the newest). The iterators walk every page themselves,
// so the zero value is the usual argument:
//
//	for p, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) { ... }
type ListParams = api.ListParams
