// Package cards is the typed client of the card product line: card products
// and invoices, applications, the card life cycle (activation, PIN, freeze,
// loss, replacement, closure), top-ups and card transactions.
//
// Get the client from mwclient.Client (client.Cards) or with New; it shares
// the root client's tokens, signing, idempotency keys and retries. Every
// member-scoped method takes the member identifier explicitly (an
// external_member_id or a mem_ id); no default member is ever assumed.
//
// # Identifiers
//
// Methods accept card ids with or without their crd_ prefix, product ids with
// or without cpd_, application ids with or without cap_ and transaction ids
// with or without ctx_; the prefix is added before sending.
//
// # Applying for a card: two idempotency keys
//
// POST /v1/cards/applications moves funds (issuance fee, shipping, and any
// first top-up), so it is protected twice:
//
//   - x-idempotency-key covers one logical call for 24 hours. The SDK
//     generates it once per call and reuses it on its own retries; pass
//     mwallet.WithIdempotencyKey to resend the same call after a crash.
//   - client_key is the business-level key, stored by the service
//     permanently. Resending an application after 24 hours without the same
//     client_key can issue a second card.
//
// ApplyParams.ClientKey is therefore required: generate it with NewClientKey
// when the end user starts the application, store it with your own order
// record, and send the same value on every attempt for that order, however
// late. The SDK never invents one, because a key the caller did not store
// protects nothing.
//
// # Money
//
// Invoice amounts (fees, minimum first top-up, shipping) are money.Amount at
// the invoice's ledger_scale. Card transaction amounts are integers in the
// smallest unit of the card currency with a separate scale; Transaction turns
// them into money.Amount values, and its Signed method applies the direction,
// which must always be read together with the amount. Top-up and first top-up
// amounts are money.Amount values in the source asset.
//
// A top-up that returns 201 processing is not a credit: the card balance only
// grows when the card.topup.credited event arrives.
//
// # Secrets
//
// PIN and CVV values are held in the PIN and CVV types, which never reveal
// their contents through String, GoString, fmt verbs, slog or JSON/text
// marshalling; the digits are placed only into the request body. The token of
// a secure session is a SessionToken with the same property. Card detail
// carries at most the last four digits of the card number.
//
// # Step-up
//
// SetPIN requires strong authentication on every call, ReportLost too. The
// first call answers step_up_required; mwallet.AsStepUp reads its challenge
// (ChallengeID, HostedURL, ExpiresAt and the call's IdempotencyKey). Once
// the end user has completed the hosted screen, resend the same parameters
// with StepUp.Options: the same idempotency key and x-step-up set to the
// challenge id.
//
// # Shapes inferred from the specification
//
// The specification names GET /v1/cards, GET /v1/cards/{id},
// GET /v1/cards/applications/{id}, freeze, unfreeze, replacements,
// close-check, the top-up estimate and the secure session without showing
// their fields. The methods for them use a conservative shape consistent with
// the resources that are shown, and each says so in its documentation.
package cards
