package simulator

import (
	"net/url"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// The handler contract of the business API (endpoint, request, error
// envelope, member, lists, the strict body decoder) lives in
// internal/api, shared by the gateway and the product lines' packages.
// These names keep the package's code as it reads today while the lines
// move out.
type (
	endpoint     = api.Endpoint
	rc           = api.Request
	apiError     = api.Error
	member       = api.Member
	pageKey      = api.PageKey
	listEnvelope = api.ListEnvelope
)

const (
	ignoreUnknown = api.IgnoreUnknown
	refuseUnknown = api.RefuseUnknown
)

func newErr(code, message string) *apiError                 { return api.NewErr(code, message) }
func errInvalidRequest(msg string) *apiError                { return api.InvalidRequest(msg) }
func errInvalidFields(msg string, keys ...string) *apiError { return api.InvalidFields(msg, keys...) }
func errNotFound(what string) *apiError                     { return api.NotFound(what) }
func errBusiness500(msg string) *apiError                   { return api.Business500(msg) }
func asAPIError(err error) *apiError                        { return api.AsError(err) }
func pageLimit(q url.Values) int                            { return api.PageLimit(q) }

func decodeStrict(body []byte, v any, allowUnknown bool) *apiError {
	return api.DecodeStrict(body, v, allowUnknown)
}

func paginate[T any](items []T, key func(T) pageKey, q url.Values) listEnvelope {
	return api.Paginate(items, key, q)
}

func insertByKey[T any](items []T, item T, key func(T) pageKey) []T {
	return api.InsertByKey(items, item, key)
}

// fieldReason is one invalid_fields item with a reason.
type fieldReason struct{ key, reason string }

// errInvalidFieldReasons answers invalid_fields with a key and a reason per
// field.
func errInvalidFieldReasons(msg string, fields ...fieldReason) *apiError {
	out := make([]api.FieldReason, 0, len(fields))
	for _, f := range fields {
		out = append(out, api.FieldReason{Key: f.key, Reason: f.reason})
	}
	return api.InvalidFieldReasons(msg, out...)
}
