// Package windows holds the gateway's windows of time: the expiry queues
// of the consumed nonces, the exchanged tokens, the idempotency records and
// the windows the product lines schedule on (kernel.Services' ExpireAt),
// and the merchant-level write quota's minute of counted writes. Each is a
// pair of kernel cells or tables; the gateway's sweep drains the queues at
// every business request, costing only what expires.
package windows
