package simulator

import pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"

// The request headers of the contract and their edge rules (a header sent
// twice, two different tokens, a write's Content-Type) are internal/gateway's
// (headers.go).

// ContractHeaders lists the request headers of the contract (canonical
// form), each of which a request may carry at most once.
func ContractHeaders() []string { return append([]string(nil), pipeline.ContractHeaders...) }
