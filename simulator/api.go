package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// The handler contract of the business API (endpoint, request, error
// envelope, member, lists, the strict body decoder) lives in
// internal/api, shared by the gateway and the product lines' packages.
// These names keep the package's code as it reads today while the lines
// move out.
type (
	endpoint = api.Endpoint
	rc       = api.Request
	apiError = api.Error
	member   = api.Member
	pageKey  = api.PageKey
)

func errBusiness500(msg string) *apiError { return api.Business500(msg) }
