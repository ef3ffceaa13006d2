// The codes below follow the Errors section of the interface specification.

package mwallet

import "github.com/mwallet/mwallet-go/internal/api"

// Error codes of the service (53 public codes). Branch on these, never on the
// message or the HTTP status. An unknown code is handled as CodeAPIError.
const (
	// CodeInvalidCredentials (401): token-exchange x-client-id or x-api-key wrong, Key disabled or expired, rotation overlap closed; unknown client and wrong secret are indistinguishable.
	CodeInvalidCredentials = api.CodeInvalidCredentials
	// CodeInvalidToken (401): token missing, malformed, expired (30 minutes), or its Key disabled, expired or reassigned.
	CodeInvalidToken = api.CodeInvalidToken
	// CodeInvalidSignature (401): signature mismatch or any of x-timestamp, x-nonce, x-signature missing or non-numeric timestamp.
	CodeInvalidSignature = api.CodeInvalidSignature
	// CodeSignatureRequired (401): endpoint requires signing (reserved; missing headers currently give invalid_signature).
	CodeSignatureRequired = api.CodeSignatureRequired
	// CodeTimestampOutOfRange (401): timestamp more than 300 seconds from server clock (milliseconds land here).
	CodeTimestampOutOfRange = api.CodeTimestampOutOfRange
	// CodeNonceReused (401): nonce already used within 5 minutes.
	CodeNonceReused = api.CodeNonceReused
	// CodeEnvironmentMismatch (400): token environment differs from deployment.
	CodeEnvironmentMismatch = api.CodeEnvironmentMismatch
	// CodeInsufficientScope (403): Key lacks the endpoint scope.
	CodeInsufficientScope = api.CodeInsufficientScope
	// CodeIPNotAllowed (403): caller IP not on the Key allowlist.
	CodeIPNotAllowed = api.CodeIPNotAllowed
	// CodeMerchantDisabled (403): merchant nonexistent, suspended, frozen or closed (one code).
	CodeMerchantDisabled = api.CodeMerchantDisabled
	// CodeIdempotencyKeyRequired (400): write without x-idempotency-key.
	CodeIdempotencyKeyRequired = api.CodeIdempotencyKeyRequired
	// CodeIdempotencyKeyInvalid (400): key not UUID-shaped.
	CodeIdempotencyKeyInvalid = api.CodeIdempotencyKeyInvalid
	// CodeQuoteLockUnsupported (400): quote id sent to an endpoint that prices at execution (merchant self-conversion).
	CodeQuoteLockUnsupported = api.CodeQuoteLockUnsupported
	// CodeIdempotencyKeyReused (409): key reused with different body or endpoint.
	CodeIdempotencyKeyReused = api.CodeIdempotencyKeyReused
	// CodeIdempotencyInProgress (409): first request still processing.
	CodeIdempotencyInProgress = api.CodeIdempotencyInProgress
	// CodeMemberNotFound (404): member unknown, foreign, suspended or blocklisted (one response).
	CodeMemberNotFound = api.CodeMemberNotFound
	// CodeMemberContextRequired (400): x-on-behalf-of missing or blank.
	CodeMemberContextRequired = api.CodeMemberContextRequired
	// CodeMemberSuspended (400): reserved; currently reported as member_not_found.
	CodeMemberSuspended = api.CodeMemberSuspended
	// CodeQuickKYCDisabled (400): quick KYC not enabled for the merchant.
	CodeQuickKYCDisabled = api.CodeQuickKYCDisabled
	// CodeQuickKYCLimit (400): member already has 5 quick profiles.
	CodeQuickKYCLimit = api.CodeQuickKYCLimit
	// CodeQuickKYCExhausted (400): no matching unassigned quick profile.
	CodeQuickKYCExhausted = api.CodeQuickKYCExhausted
	// CodeQuickKYCUnpaid (400): usage fee (10 USDT) not covered.
	CodeQuickKYCUnpaid = api.CodeQuickKYCUnpaid
	// CodeKYCRequired (400): member KYC level below the line's requirement.
	CodeKYCRequired = api.CodeKYCRequired
	// CodeInsufficientBalance (400): member available balance insufficient.
	CodeInsufficientBalance = api.CodeInsufficientBalance
	// CodeMerchantInsufficientFunds (400): merchant prepaid available balance insufficient.
	CodeMerchantInsufficientFunds = api.CodeMerchantInsufficientFunds
	// CodeMerchantCustodyShortfall (400): confirming a withdrawal would make the merchant custody declaration negative.
	CodeMerchantCustodyShortfall = api.CodeMerchantCustodyShortfall
	// CodeProductNotAvailable (400): product not authorized, discontinued, or prerequisites unmet.
	CodeProductNotAvailable = api.CodeProductNotAvailable
	// CodeCardOperationNotSupported (400): card does not support the operation.
	CodeCardOperationNotSupported = api.CodeCardOperationNotSupported
	// CodeLimitExceeded (400): a limit reached.
	CodeLimitExceeded = api.CodeLimitExceeded
	// CodeAmountOutOfRange (400): amount outside product range.
	CodeAmountOutOfRange = api.CodeAmountOutOfRange
	// CodeRequestRejected (400): risk rejection, no reason given.
	CodeRequestRejected = api.CodeRequestRejected
	// CodeStepUpRequired (400): strong authentication needed.
	CodeStepUpRequired = api.CodeStepUpRequired
	// CodeOrderNotCancellable (400): order past the cancellable point.
	CodeOrderNotCancellable = api.CodeOrderNotCancellable
	// CodeAssetNotAllowed (400): asset not allowlisted, disabled, or no channel for the asset and network pair.
	CodeAssetNotAllowed = api.CodeAssetNotAllowed
	// CodeInvalidRequest (400): malformed JSON, missing or empty required field, unknown enum, wrong amount format or decimals.
	CodeInvalidRequest = api.CodeInvalidRequest
	// CodeKYCUploadInvalid (400): unsupported uploaded file type.
	CodeKYCUploadInvalid = api.CodeKYCUploadInvalid
	// CodeKYCUploadTooLarge (400): file over the per-file size limit.
	CodeKYCUploadTooLarge = api.CodeKYCUploadTooLarge
	// CodeInvalidFields (400): per-field validation failure with fields array.
	CodeInvalidFields = api.CodeInvalidFields
	// CodeCardPinInvalid (400): PIN length invalid for the card.
	CodeCardPinInvalid = api.CodeCardPinInvalid
	// CodeCardPinRejected (400): PIN breaks the card's rules.
	CodeCardPinRejected = api.CodeCardPinRejected
	// CodeCardActivateFailed (400): activation not accepted.
	CodeCardActivateFailed = api.CodeCardActivateFailed
	// CodeCorridorNotSupported (400): remittance or payment corridor cannot be served.
	CodeCorridorNotSupported = api.CodeCorridorNotSupported
	// CodeResourceNotFound (404): referenced object not this member's or nonexistent.
	CodeResourceNotFound = api.CodeResourceNotFound
	// CodeStateInvalid (400): action invalid in the object's current state.
	CodeStateInvalid = api.CodeStateInvalid
	// CodeDuplicateResource (409): identical record exists.
	CodeDuplicateResource = api.CodeDuplicateResource
	// CodeAddressNotAllowed (400): withdrawal address is the service's own deposit address, blocklisted, or invalid.
	CodeAddressNotAllowed = api.CodeAddressNotAllowed
	// CodeQRCodeInvalid (400): QR code undecodable, unsupported standard, or upstream rejection.
	CodeQRCodeInvalid = api.CodeQRCodeInvalid
	// CodeNotFound (404): path or object nonexistent or not yours; sandbox-only endpoints answer this in live.
	CodeNotFound = api.CodeNotFound
	// CodeRateLimited (429): quota exceeded.
	CodeRateLimited = api.CodeRateLimited
	// CodeAPIError (500): internal error.
	CodeAPIError = api.CodeAPIError
	// CodeUpstreamError (502): upstream unavailable.
	CodeUpstreamError = api.CodeUpstreamError
	// CodeUpstreamTimeout (504): outcome unknown; may have executed.
	CodeUpstreamTimeout = api.CodeUpstreamTimeout
	// CodeServiceUnavailable (400): line temporarily unavailable (funding, configuration or upstream; deliberately not distinguished).
	CodeServiceUnavailable = api.CodeServiceUnavailable
)
