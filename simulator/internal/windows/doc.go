// Package windows holds the expiry queues of the gateway's windows: the
// consumed nonces, the exchanged tokens, the idempotency records and the
// windows the product lines schedule on (kernel.Services' ExpireAt). Each
// queue is a pair of kernel tables; the gateway's sweep drains them at
// every business request, costing only what expires.
package windows
