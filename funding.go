package mwallet

// FundingSource says who funds an operation that moves money (a QR quote or
// payment, a card application or top-up, a remittance): the member's wallet
// or the merchant's prepaid account. It is an open enumeration, sent exactly
// as set.
//
// The zero value omits the field, which platform_hosted accounts read as
// FundingMember. merchant_hosted accounts must send FundingMerchant on every
// such call, or the service answers invalid_fields on funding_source with
// nothing debited.
type FundingSource string

// Funding sources.
const (
	// FundingMember debits the member's wallet (platform_hosted accounts
	// only; their default when the field is omitted).
	FundingMember FundingSource = "member"
	// FundingMerchant debits the merchant prepaid account; merchant_hosted
	// accounts must send it.
	FundingMerchant FundingSource = "merchant"
)

// Known reports whether f is one of the documented funding sources.
func (f FundingSource) Known() bool { return f == FundingMember || f == FundingMerchant }
