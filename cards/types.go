package cards

// CardStatus is the status of a card. It is an open enumeration: a value not
// listed here is kept verbatim and reported by Known as false.
type CardStatus string

// Card statuses named by the specification.
const (
	CardUnactivated CardStatus = "unactivated"
	CardActive      CardStatus = "active"
	CardFrozen      CardStatus = "frozen"
	CardPending     CardStatus = "pending"
	CardClosing     CardStatus = "closing"
	CardClosed      CardStatus = "closed"
	CardExpired     CardStatus = "expired"
	CardReplaced    CardStatus = "replaced"
	CardLost        CardStatus = "lost"
)

// Known reports whether s is one of the statuses named by the specification.
func (s CardStatus) Known() bool {
	switch s {
	case CardUnactivated, CardActive, CardFrozen, CardPending, CardClosing, CardClosed, CardExpired, CardReplaced, CardLost:
		return true
	}
	return false
}

// Ended reports whether the card has ended (closed, expired or replaced); a
// close request on such a card is answered without effect.
func (s CardStatus) Ended() bool { return s == CardClosed || s == CardExpired || s == CardReplaced }

// AcceptsTopUps reports whether a card in status s accepts top-ups (active,
// frozen or pending).
func (s CardStatus) AcceptsTopUps() bool {
	return s == CardActive || s == CardFrozen || s == CardPending
}

// ApplicationStatus is the status of a card application (open enumeration).
type ApplicationStatus string

// Application statuses. Only ApplicationIssued means the card exists.
const (
	// ApplicationPendingReview: created for a manual-review product.
	ApplicationPendingReview ApplicationStatus = "pending_review"
	// ApplicationSubmitted: created for an automatic-review product.
	ApplicationSubmitted ApplicationStatus = "submitted"
	// ApplicationIssued: the card exists.
	ApplicationIssued ApplicationStatus = "issued"
	// ApplicationRejected: issuance failed and the issuance fee was refunded.
	// The value is inferred from the card.application.rejected event; the
	// specification names no status for it.
	ApplicationRejected ApplicationStatus = "rejected"
)

// Known reports whether s is a known application status.
func (s ApplicationStatus) Known() bool {
	switch s {
	case ApplicationPendingReview, ApplicationSubmitted, ApplicationIssued, ApplicationRejected:
		return true
	}
	return false
}

// InProgress reports whether the application is still under review (it then
// occupies a card-limit slot).
func (s ApplicationStatus) InProgress() bool {
	return s == ApplicationPendingReview || s == ApplicationSubmitted
}

// FormFactor is the form factor of a product, application or card (open
// enumeration). Products use virtual_card and physical_card; applications
// and cards use virtual and physical.
type FormFactor string

// Form factors.
const (
	FormFactorVirtual         FormFactor = "virtual"
	FormFactorPhysical        FormFactor = "physical"
	ProductFormFactorVirtual  FormFactor = "virtual_card"
	ProductFormFactorPhysical FormFactor = "physical_card"
)

// Known reports whether f is a known form factor.
func (f FormFactor) Known() bool {
	switch f {
	case FormFactorVirtual, FormFactorPhysical, ProductFormFactorVirtual, ProductFormFactorPhysical:
		return true
	}
	return false
}

// Physical reports whether f names a physical card, in either vocabulary.
func (f FormFactor) Physical() bool { return f == FormFactorPhysical || f == ProductFormFactorPhysical }

// TopUpStatus is the status of a top-up order (open enumeration).
type TopUpStatus string

// Top-up statuses. Neither means the card was credited; only the
// card.topup.credited event confirms a credit.
const (
	// TopUpProcessing: accepted, awaiting reconciliation or queued.
	TopUpProcessing TopUpStatus = "processing"
	// TopUpCompleted: only for a shared-limit card that settles immediately.
	TopUpCompleted TopUpStatus = "completed"
)

// Known reports whether s is a known top-up status.
func (s TopUpStatus) Known() bool { return s == TopUpProcessing || s == TopUpCompleted }

// LostKind says whether a card was lost or stolen.
type LostKind string

// Loss kinds. The service treats an unrecognised kind as lost.
const (
	LostKindLost   LostKind = "lost"
	LostKindStolen LostKind = "stolen"
)

// Known reports whether k is lost or stolen.
func (k LostKind) Known() bool { return k == LostKindLost || k == LostKindStolen }

// TransactionKind is the kind of a card transaction (open enumeration; the
// specification shows the value auth).
type TransactionKind string

// TransactionKindAuth is an authorization.
const TransactionKindAuth TransactionKind = "auth"

// Known reports whether k is a kind named by the specification.
func (k TransactionKind) Known() bool { return k == TransactionKindAuth }

// TransactionStatus is the status of a card transaction (open enumeration;
// the specification shows the value succeed).
type TransactionStatus string

// TransactionSucceeded is the status of a successful transaction.
const TransactionSucceeded TransactionStatus = "succeed"

// Known reports whether s is a status named by the specification.
func (s TransactionStatus) Known() bool { return s == TransactionSucceeded }

// Direction says which way a card transaction moves money. The set is closed
// (debit, credit, none, unknown), but a value outside it is still kept
// verbatim and reported by Known as false. Always read it with the amount.
type Direction string

// Directions.
const (
	DirectionDebit   Direction = "debit"
	DirectionCredit  Direction = "credit"
	DirectionNone    Direction = "none"
	DirectionUnknown Direction = "unknown"
)

// Known reports whether d is one of the four directions.
func (d Direction) Known() bool {
	switch d {
	case DirectionDebit, DirectionCredit, DirectionNone, DirectionUnknown:
		return true
	}
	return false
}

// CloseBlocker names why a card cannot be closed yet (open enumeration; the
// values are inferred, see CloseCheck).
type CloseBlocker string

// Close blockers.
const (
	// CloseBlockedBalance: the card still holds a balance.
	CloseBlockedBalance CloseBlocker = "balance_remaining"
	// CloseBlockedUnsettled: authorized transactions are not settled yet.
	CloseBlockedUnsettled CloseBlocker = "unsettled_transactions"
	// CloseBlockedUpstreamBalance: the issuer's balance cannot be read now.
	CloseBlockedUpstreamBalance CloseBlocker = "upstream_balance_unreadable"
	// CloseBlockedState: the card's status does not allow closing.
	CloseBlockedState CloseBlocker = "state"
	// CloseBlockedTopUpInFlight: a top-up to the card is still processing;
	// its money is unsettled funds, so close waits for its outcome.
	CloseBlockedTopUpInFlight CloseBlocker = "topup_in_flight"
)

// Known reports whether b is a known blocker.
func (b CloseBlocker) Known() bool {
	switch b {
	case CloseBlockedBalance, CloseBlockedUnsettled, CloseBlockedUpstreamBalance, CloseBlockedState, CloseBlockedTopUpInFlight:
		return true
	}
	return false
}
