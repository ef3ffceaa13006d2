package webhooks

// NewTestVerifier is Handler's verifier (the keyed HMAC states of fixed
// secrets), for the external tests and benchmarks.
var NewTestVerifier = newVerifier
