// The codes below follow the Errors section of the interface specification.

package mwallet

import "slices"

// Error codes of the service (53 public codes). Branch on these, never on the
// message or the HTTP status. An unknown code is handled as CodeAPIError.
const (
	// CodeInvalidCredentials (401): token-exchange x-client-id or x-api-key wrong, Key disabled or expired, rotation overlap closed; unknown client and wrong secret are indistinguishable.
	CodeInvalidCredentials Code = "invalid_credentials"
	// CodeInvalidToken (401): token missing, malformed, expired (30 minutes), or its Key disabled, expired or reassigned.
	CodeInvalidToken Code = "invalid_token"
	// CodeInvalidSignature (401): signature mismatch or any of x-timestamp, x-nonce, x-signature missing or non-numeric timestamp.
	CodeInvalidSignature Code = "invalid_signature"
	// CodeSignatureRequired (401): endpoint requires signing (reserved; missing headers currently give invalid_signature).
	CodeSignatureRequired Code = "signature_required"
	// CodeTimestampOutOfRange (401): timestamp more than 300 seconds from server clock (milliseconds land here).
	CodeTimestampOutOfRange Code = "timestamp_out_of_range"
	// CodeNonceReused (401): nonce already used within 5 minutes.
	CodeNonceReused Code = "nonce_reused"
	// CodeEnvironmentMismatch (400): token environment differs from deployment.
	CodeEnvironmentMismatch Code = "environment_mismatch"
	// CodeInsufficientScope (403): Key lacks the endpoint scope.
	CodeInsufficientScope Code = "insufficient_scope"
	// CodeIPNotAllowed (403): caller IP not on the Key allowlist.
	CodeIPNotAllowed Code = "ip_not_allowed"
	// CodeMerchantDisabled (403): merchant nonexistent, suspended, frozen or closed (one code).
	CodeMerchantDisabled Code = "merchant_disabled"
	// CodeIdempotencyKeyRequired (400): write without x-idempotency-key.
	CodeIdempotencyKeyRequired Code = "idempotency_key_required"
	// CodeIdempotencyKeyInvalid (400): key not UUID-shaped.
	CodeIdempotencyKeyInvalid Code = "idempotency_key_invalid"
	// CodeQuoteLockUnsupported (400): quote id sent to an endpoint that prices at execution (merchant self-conversion).
	CodeQuoteLockUnsupported Code = "quote_lock_unsupported"
	// CodeIdempotencyKeyReused (409): key reused with different body or endpoint.
	CodeIdempotencyKeyReused Code = "idempotency_key_reused"
	// CodeIdempotencyInProgress (409): first request still processing.
	CodeIdempotencyInProgress Code = "idempotency_in_progress"
	// CodeMemberNotFound (404): member unknown, foreign, suspended or blocklisted (one response).
	CodeMemberNotFound Code = "member_not_found"
	// CodeMemberContextRequired (400): x-on-behalf-of missing or blank.
	CodeMemberContextRequired Code = "member_context_required"
	// CodeMemberSuspended (400): reserved; currently reported as member_not_found.
	CodeMemberSuspended Code = "member_suspended"
	// CodeQuickKYCDisabled (400): quick KYC not enabled for the merchant.
	CodeQuickKYCDisabled Code = "quick_kyc_disabled"
	// CodeQuickKYCLimit (400): member already has 5 quick profiles.
	CodeQuickKYCLimit Code = "quick_kyc_limit"
	// CodeQuickKYCExhausted (400): no matching unassigned quick profile.
	CodeQuickKYCExhausted Code = "quick_kyc_exhausted"
	// CodeQuickKYCUnpaid (400): usage fee (10 USDT) not covered.
	CodeQuickKYCUnpaid Code = "quick_kyc_unpaid"
	// CodeKYCRequired (400): member KYC level below the line's requirement.
	CodeKYCRequired Code = "kyc_required"
	// CodeInsufficientBalance (400): member available balance insufficient.
	CodeInsufficientBalance Code = "insufficient_balance"
	// CodeMerchantInsufficientFunds (400): merchant prepaid available balance insufficient.
	CodeMerchantInsufficientFunds Code = "merchant_insufficient_funds"
	// CodeMerchantCustodyShortfall (400): confirming a withdrawal would make the merchant custody declaration negative.
	CodeMerchantCustodyShortfall Code = "merchant_custody_shortfall"
	// CodeProductNotAvailable (400): product not authorized, discontinued, or prerequisites unmet.
	CodeProductNotAvailable Code = "product_not_available"
	// CodeCardOperationNotSupported (400): card does not support the operation.
	CodeCardOperationNotSupported Code = "card_operation_not_supported"
	// CodeLimitExceeded (400): a limit reached.
	CodeLimitExceeded Code = "limit_exceeded"
	// CodeAmountOutOfRange (400): amount outside product range.
	CodeAmountOutOfRange Code = "amount_out_of_range"
	// CodeRequestRejected (400): risk rejection, no reason given.
	CodeRequestRejected Code = "request_rejected"
	// CodeStepUpRequired (400): strong authentication needed.
	CodeStepUpRequired Code = "step_up_required"
	// CodeOrderNotCancellable (400): order past the cancellable point.
	CodeOrderNotCancellable Code = "order_not_cancellable"
	// CodeAssetNotAllowed (400): asset not allowlisted, disabled, or no channel for the asset and network pair.
	CodeAssetNotAllowed Code = "asset_not_allowed"
	// CodeInvalidRequest (400): malformed JSON, missing or empty required field, unknown enum, wrong amount format or decimals.
	CodeInvalidRequest Code = "invalid_request"
	// CodeKYCUploadInvalid (400): unsupported uploaded file type.
	CodeKYCUploadInvalid Code = "kyc_upload_invalid"
	// CodeKYCUploadTooLarge (400): file over the per-file size limit.
	CodeKYCUploadTooLarge Code = "kyc_upload_too_large"
	// CodeInvalidFields (400): per-field validation failure with fields array.
	CodeInvalidFields Code = "invalid_fields"
	// CodeCardPinInvalid (400): PIN length invalid for the card.
	CodeCardPinInvalid Code = "card_pin_invalid"
	// CodeCardPinRejected (400): PIN breaks the card's rules.
	CodeCardPinRejected Code = "card_pin_rejected"
	// CodeCardActivateFailed (400): activation not accepted.
	CodeCardActivateFailed Code = "card_activate_failed"
	// CodeCorridorNotSupported (400): remittance or payment corridor cannot be served.
	CodeCorridorNotSupported Code = "corridor_not_supported"
	// CodeResourceNotFound (404): referenced object not this member's or nonexistent.
	CodeResourceNotFound Code = "resource_not_found"
	// CodeStateInvalid (400): action invalid in the object's current state.
	CodeStateInvalid Code = "state_invalid"
	// CodeDuplicateResource (409): identical record exists.
	CodeDuplicateResource Code = "duplicate_resource"
	// CodeAddressNotAllowed (400): withdrawal address is the service's own deposit address, blocklisted, or invalid.
	CodeAddressNotAllowed Code = "address_not_allowed"
	// CodeQRCodeInvalid (400): QR code undecodable, unsupported standard, or upstream rejection.
	CodeQRCodeInvalid Code = "qr_code_invalid"
	// CodeNotFound (404): path or object nonexistent or not yours; sandbox-only endpoints answer this in live.
	CodeNotFound Code = "not_found"
	// CodeRateLimited (429): quota exceeded.
	CodeRateLimited Code = "rate_limited"
	// CodeAPIError (500): internal error.
	CodeAPIError Code = "api_error"
	// CodeUpstreamError (502): upstream unavailable.
	CodeUpstreamError Code = "upstream_error"
	// CodeUpstreamTimeout (504): outcome unknown; may have executed.
	CodeUpstreamTimeout Code = "upstream_timeout"
	// CodeServiceUnavailable (400): line temporarily unavailable (funding, configuration or upstream; deliberately not distinguished).
	CodeServiceUnavailable Code = "service_unavailable"
)

// codeStatus is the documented HTTP status of each code.
var codeStatus = map[Code]int{
	CodeInvalidCredentials:        401,
	CodeInvalidToken:              401,
	CodeInvalidSignature:          401,
	CodeSignatureRequired:         401,
	CodeTimestampOutOfRange:       401,
	CodeNonceReused:               401,
	CodeEnvironmentMismatch:       400,
	CodeInsufficientScope:         403,
	CodeIPNotAllowed:              403,
	CodeMerchantDisabled:          403,
	CodeIdempotencyKeyRequired:    400,
	CodeIdempotencyKeyInvalid:     400,
	CodeQuoteLockUnsupported:      400,
	CodeIdempotencyKeyReused:      409,
	CodeIdempotencyInProgress:     409,
	CodeMemberNotFound:            404,
	CodeMemberContextRequired:     400,
	CodeMemberSuspended:           400,
	CodeQuickKYCDisabled:          400,
	CodeQuickKYCLimit:             400,
	CodeQuickKYCExhausted:         400,
	CodeQuickKYCUnpaid:            400,
	CodeKYCRequired:               400,
	CodeInsufficientBalance:       400,
	CodeMerchantInsufficientFunds: 400,
	CodeMerchantCustodyShortfall:  400,
	CodeProductNotAvailable:       400,
	CodeCardOperationNotSupported: 400,
	CodeLimitExceeded:             400,
	CodeAmountOutOfRange:          400,
	CodeRequestRejected:           400,
	CodeStepUpRequired:            400,
	CodeOrderNotCancellable:       400,
	CodeAssetNotAllowed:           400,
	CodeInvalidRequest:            400,
	CodeKYCUploadInvalid:          400,
	CodeKYCUploadTooLarge:         400,
	CodeInvalidFields:             400,
	CodeCardPinInvalid:            400,
	CodeCardPinRejected:           400,
	CodeCardActivateFailed:        400,
	CodeCorridorNotSupported:      400,
	CodeResourceNotFound:          404,
	CodeStateInvalid:              400,
	CodeDuplicateResource:         409,
	CodeAddressNotAllowed:         400,
	CodeQRCodeInvalid:             400,
	CodeNotFound:                  404,
	CodeRateLimited:               429,
	CodeAPIError:                  500,
	CodeUpstreamError:             502,
	CodeUpstreamTimeout:           504,
	CodeServiceUnavailable:        400,
}

// KnownCodes returns the 53 documented codes, sorted.
func KnownCodes() []Code {
	out := make([]Code, 0, len(codeStatus))
	for c := range codeStatus {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
