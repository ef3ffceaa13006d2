package mwallet

import "slices"

// The Code constants, the status, type and retry class of every code and the
// error type of every status are generated from codes.tsv, the one table of
// the service's error codes (the simulator answers from the same table).
//go:generate go run ./internal/codes/gen codes.tsv codes_gen.go

// Code is a public error code of the service, such as "step_up_required".
// Codes are contract; messages are not. An unknown code is kept verbatim and
// handled as CodeAPIError.
type Code string

// codeInfo is one row of the code table.
type codeInfo struct {
	status int
	typ    string
	retry  RetryClass
}

// Known reports whether c is one of the 53 documented codes.
func (c Code) Known() bool { _, ok := codeTable[c]; return ok }

// HTTPStatus returns the documented HTTP status of c, or 0 when c is unknown.
func (c Code) HTTPStatus() int { return codeTable[c].status }

// Type returns the error type the specification documents for c's HTTP
// status (for example "invalid_request_error" for a 400), or "" when c is
// unknown.
func (c Code) Type() string { return codeTable[c].typ }

// Retry tells what the specification's retry rules say about c. An unknown
// code is treated as api_error: RetrySameKey.
func (c Code) Retry() RetryClass {
	if info, ok := codeTable[c]; ok {
		return info.retry
	}
	return RetrySameKey
}

// KnownCodes returns the 53 documented codes, sorted.
func KnownCodes() []Code {
	out := make([]Code, 0, len(codeTable))
	for c := range codeTable {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
