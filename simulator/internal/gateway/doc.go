// Package gateway holds the business API's pipeline pieces that need
// nothing of the simulator: the edge rules of the contract's request
// headers (headers.go), the request path as the gateway reads it once
// (path.go), the index of paths registered without wildcards and the
// methods a path serves (routes.go), the request signature with the
// caller's address and the API key's allowlist entries (sign.go), the API
// key and the access token as the checks of the caller read them (key.go), the
// explanation of a refused signature (signature.go), the API key's scope
// rules and allowlist (scopes.go), the request journal's table
// (journal.go), the window stores' caps with the refusal of a full store
// and the step-up line's bound of its challenges (caps.go), the answer built under the state lock and written after it
// (response.go), the gateway's state as kernel tables with its request ids
// and body digests (state.go), the sweep of its expired windows
// (sweep.go), and the token exchange's quota, the signature check and the
// nonce it consumes (auth.go). The simulator converts the journal's rows to
// and from its public RequestRecord and SignatureCheck.
package gateway
