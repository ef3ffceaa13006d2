// Package simulator is an offline, stateful contract simulator of the
// Merchant Wallet, Card, Remittance and QR-Payment service. A test starts its
// own and drives it through the real SDK over HTTP:
//
//	func TestDepositIsCredited(t *testing.T) {
//		t.Parallel()
//		sim, client := simtest.New(t) // its own simulator and a *mwclient.Client wired to it
//		_, err := client.Deposits.Create(context.Background(), "member-1",
//			deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "ref-1"})
//		if err != nil {
//			t.Fatal(err)
//		}
//		available, _, err := sim.Members.Balance("member-1", "USDT")
//		if err != nil || available.String() != "1025.000000" {
//			t.Errorf("available = %s (%v)", available, err)
//		}
//		// when t ends, simtest checks the ledger and the invariants and closes sim
//	}
//
// What the real service decides alone (the end user, an upstream partner, an
// operator, time) the test decides through the simulator's fields:
//
//	sim.StepUp.Complete(challengeID) // the end user finishes the hosted screen
//	sim.QRPay.Complete(orderID)      // the acquirer confirms a payment
//	sim.Clock.Advance(time.Hour)     // everything that falls due runs, in order
//
// Every rule of the interface specification that the SDK handles on the
// client side, the simulator enforces on the server side (the gateway's
// order of checks is at the end of this page), so a test can reach every
// documented state, error and retry without the real service.
//
// # Which constructor
//
//   - simtest.New(t): the way to start one in a test, with a client.
//   - simtest.Start(t, opts...), then sim.Client(opts...): when the simulator
//     or the client needs options, or the test needs several clients.
//   - New (an invalid option is an error) or MustNew (it panics, for Example
//     functions): a program outside the testing package; Close it when done.
//   - NewHandler, then SetBaseURL: serve it on a server or mux of your own.
//   - sim.Client panics on an error, sim.NewClient returns it.
//   - The command cmd/mwallet-sim (mwallet-sim): tests in other languages
//     and processes.
//
// # Use
//
// Each Simulator is isolated (its own state, ledger, clock, faults and
// request journal; no globals), so parallel tests each get their own.
//
// New serves the simulator on a loopback httptest server. WithTLS serves it
// over HTTPS and WithHTTP2 over HTTPS with HTTP/2, on a self-signed
// certificate that Client and HTTPClient trust; over HTTP/2 a dropped
// request resets only its stream, drop_before with REFUSED_STREAM (not
// processed) and drop_after with INTERNAL_ERROR.
//
// The default fixture is a sandbox, platform_hosted merchant with fixed
// credentials (DefaultClientID and the other Default constants), the asset
// catalogue (USDT and USDC at ledger scale 6, BTC 8, ETH 18, with networks),
// the member "member-1" at KYC level 1 holding 1000 USDT and 500 USDC, a
// funded merchant prepaid account, and the product lines' own fixtures (card
// products, payees). The fixture Key holds every scope, restricted scopes
// approved. With WithEnvironment(Production) its IP allowlist is 127.0.0.1,
// because production Keys need a non-empty allowlist.
//
// # Control API and Go API
//
// The control API under /_sim (no authentication, JSON in and out) and the
// matching Go API drive everything the real service decides alone. The Go
// API is grouped like the SDK client, one field of *Simulator per product
// line or concern: sim.Clock (Now, Advance), sim.Members, sim.Merchant,
// sim.Keys, sim.StepUp (the end user on the hosted screen), sim.QRPay,
// sim.Cards, sim.Remittances and sim.KYC (the upstream partners and
// operators: sim.QRPay.Complete, sim.Cards.Ship, sim.Remittances.Dispatch,
// ...), sim.Outcomes (when outcomes happen by themselves), sim.Webhooks,
// sim.Events, sim.Faults and sim.Requests. Action runs any object action by
// its control-API name; sim.Members.Balance, State, LedgerEntries and
// CheckLedger inspect. The package README maps every control endpoint and action to its
// Go method; every method of the grouped fields has a control route.
//
// # Error recipes
//
// ErrorRecipes (GET /_sim/recipes) is a runnable recipe for each documented
// error code: the steps that produce it over HTTP on a fresh default
// simulator, through the condition the simulator models, or through an
// injected fault for the few codes whose endpoint the contract does not
// show. RecipeRunner runs them with the fixture credentials.
//
// The request journal (sim.Requests, GET /_sim/requests) keeps the newest 10 000
// business requests with method, path, member, idempotency key, status, code,
// replay flag and request id; it never holds a token, key, signature or
// body. A row refused for its signature (invalid_signature,
// timestamp_out_of_range) carries a SignatureCheck: the canonical string and
// body hash the simulator computed and the clock it checked the timestamp
// against.
//
// # Ledger
//
// Every money movement is one balanced journal entry of the Ledger; member,
// card and prepaid accounts never go negative. CheckLedger verifies that
// nothing was created or lost. CheckInvariants verifies what a balanced
// ledger cannot show: no money on an ended card, every held amount owned by
// a live order and every live order holding its amount. Tests end with
// both.
//
// # Recording, replay and persistence
//
// Every simulator logs its inputs, everything that can change its state, in
// the order they ran and before they run: business requests (reads
// included), control writes, Go control calls, clock advances that run
// timers, and webhook flushes with each receiver's answer. Control reads
// change nothing and are not logged. Running the same inputs on a simulator
// built with the same configuration reaches the same state: ids come from
// seeded generators, every input carries the clock reading it ran at,
// random fault draws are recorded with their request and made again,
// webhook answers come from the log, and a request that waited in a delay
// fault resumes where the log says.
//
// Recording returns the log (GET /_sim/recording), a versioned JSON Lines
// file (Recording.WriteFile, ReadRecordingFile); WithRecording starts a
// simulator from one and stops with an error at the first input whose
// replay differs. Digest (GET /_sim/digest) hashes the whole state but the
// clock reading (reported beside it), so equal states are checkable across
// restarts and replays whatever the wall clock did. A test that fails under
// simtest leaves its recording and the command that replays it.
//
// WithDataDir keeps the log in a directory, each input synced before it is
// answered, with snapshots of the whole state every WithSnapshotEvery inputs
// so a restart reads the last one and replays the rest; the directory is
// locked, a last frame a crash cut short is cut off and reported, any other
// damage stops the start with a *DataDirError that changes nothing
// (RepairDataDir repairs it), and an input the disk cannot take is refused
// with service_unavailable without running. The package README describes
// the file format and the determinism rules.
// # Gateway: the order of checks
//
// Every business request passes the gateway before its handler, in this
// order; the first rule broken answers:
//
//  1. request id: every answer, errors and replays included, carries
//     X-Request-Id (and error envelopes carry it as request_id);
//  2. faults: an injected fault for the method and path applies (error,
//     drop_before, drop_after, delay; error_after lets the request execute
//     and store its outcome, then answers the error: "504, may have
//     executed");
//  3. token: x-auth-token or authorization, "Bearer <token>"; missing,
//     malformed, unknown or expired (30 minutes of the simulator clock) gives
//     invalid_token, as does a token whose Key is disabled or past its
//     valid_until (the Key record is read on every request);
//  4. IP allowlist of the Key, against the connection's address: a single
//     IPv4 address, a wildcard prefix (a.*, a.b.*, a.b.c.*) or a CIDR with
//     /8, /16 or /24; any other entry never matches; a non-empty list that
//     matches nothing, or an empty list on a production Key, gives
//     ip_not_allowed;
//  5. environment: a token minted in, or a Key of, another environment than
//     the deployment gives environment_mismatch;
//  6. merchant status: suspended refuses writes, frozen and closed refuse
//     everything, with merchant_disabled;
//  7. scope: the endpoint's scope, write including read of the same
//     resource, restricted scopes (deposits:write, cards:secure) counting only
//     once approved; otherwise insufficient_scope. Every endpoint needs one;
//     where the contract names none the simulator requires the line's write
//     scope for writes and its read scope for reads, adding
//     remittances:write, kyc:read and kyc:write to the catalogue (the scope
//     table is in README.md);
//  8. body: over 1 MiB gives invalid_request (malformed JSON is reported by
//     the handler, also as invalid_request);
//  9. signature, on every write (any method but GET and HEAD) when the Key
//     requires signing, and always on POST /v1/deposits: x-timestamp,
//     x-nonce and x-signature present (else invalid_signature), timestamp in
//     Unix seconds (non-numeric: invalid_signature) within 300 seconds of the
//     clock (else timestamp_out_of_range, where milliseconds land), signature
//     equal to base64(HMAC-SHA-256(signing_key, METHOD\npath?query as
//     sent\ntimestamp\nnonce\nhex(SHA-256(body)))) (else invalid_signature;
//     a hex HMAC never matches), then the nonce unused within 5 minutes in
//     the merchant and environment namespace (else nonce_reused); the nonce
//     is consumed only after the signature has been verified; then, when
//     set (sim.Merchant.SetWriteQuota, off by default), the merchant-level
//     write quota: over it, a write answers rate_limited with retry_after
//     and Retry-After;
//  10. member, on member-scoped endpoints: x-on-behalf-of trimmed; blank or
//     missing gives member_context_required; an external_member_id or a
//     mem_<uuid> of an active, banned or frozen member of this merchant is
//     found; anything else (unknown, foreign, suspended, blocklisted, bare
//     uuid, e-mail, phone) gives member_not_found;
//  11. endpoint precheck, where the contract puts a rule before replay (POST
//     /v1/deposits refuses merchant_hosted merchants with
//     insufficient_scope);
//  12. idempotency, on creating writes: x-idempotency-key required
//     (idempotency_key_required) and UUID-shaped 8-4-4-4-12 hex
//     (idempotency_key_invalid); a record keyed by merchant and key lives 24
//     hours: the same endpoint and body replay the stored status and body
//     with X-Idempotent-Replay: true (stored failures included); another body
//     or endpoint gives idempotency_key_reused; a first request still running
//     gives idempotency_in_progress;
//  13. handler.
//
// Rejections before step 12 create no idempotency record, so the corrected
// resend with the same key executes. Of the handler's answers only definite
// outcomes are stored: step_up_required, rate_limited, upstream_error,
// upstream_timeout, idempotency_in_progress and idempotency_key_reused are
// not, so the resend with the same key executes. Nonces, idempotency
// records, step-up challenges, the QR quote memo and tokens expire by the
// simulator clock and are deleted as they expire, never before; under a
// clock that stands still a full store (100 000 nonces, records or
// challenges) refuses the request that would add to it with
// service_unavailable and Retry-After, before anything executes.
//
// Request bodies, business and control API, go through one strict decoder:
// one JSON object, nothing after it, no duplicate keys, lower snake case
// field names matched exactly, valid UTF-8 and the fields' JSON types;
// anything else is invalid_request and changes nothing. Well-named unknown
// fields are ignored by the business API and refused by the control API.
//
// Lists are newest first; items of the same instant are ordered by creation
// sequence, never by their random ids.
//
// The token exchange (POST /v1/connect/token) checks x-client-id and
// x-api-key (unknown client, wrong key, disabled or expired Key: one
// invalid_credentials answer), the IP allowlist and the environment, and
// allows 20 exchanges per minute per Key before rate_limited with
// retry_after and Retry-After.
//
// The router never redirects: non-canonical paths (empty, "." or ".."
// segments), unknown paths and unserved methods answer 404 not_found with
// the error envelope and X-Request-Id (unserved methods with an Allow
// header).
package simulator
