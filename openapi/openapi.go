// Package openapi holds the OpenAPI 3.1 descriptions of the service, embedded
// in every binary that imports it:
//
//   - mwallet.yaml, the business API (/v1) as the interface specification
//     describes it, with the endpoints the specification names without
//     their shapes marked x-inferred;
//   - mwallet-sim.yaml, the control API (/_sim) of the contract simulator.
//
// The simulator serves them at GET /_sim/openapi.yaml and
// GET /_sim/openapi-sim.yaml, so teams that do not write Go can fetch the
// document from a running mwallet-sim and generate a client from it.
//
// The repository's CI holds both documents to the simulator: Redocly lints
// them, a validator in the nested module openapi/validate checks every
// exchange of the test suites against them, and Prism validates the examples
// and a tour of every endpoint as a proxy in front of mwallet-sim.
package openapi

import _ "embed"

//go:embed mwallet.yaml
var business []byte

//go:embed mwallet-sim.yaml
var control []byte

// Business returns the OpenAPI document of the business API (mwallet.yaml).
// The caller may not modify the slice.
func Business() []byte { return business }

// Control returns the OpenAPI document of the simulator's control API
// (mwallet-sim.yaml). The caller may not modify the slice.
func Control() []byte { return control }
