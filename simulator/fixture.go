package simulator

import (
	"fmt"
	"strings"
)

// Fixture scopes granted to the default Key. deposits:write and cards:secure
// are restricted scopes; the fixture Key has them approved.
var fixtureScopes = []string{
	"members:read", "qrpay:write", "deposits:write", "cards:read", "cards:write",
	"cards:secure", "remittances:read", "merchant:read",
}

func (s *Simulator) loadFixture() {
	s.merchant = &merchantState{
		ID:     s.creds.MerchantID,
		Model:  s.creds.Model,
		Status: "active",
		Env:    s.creds.Environment,
	}
	scopes := map[string]bool{}
	for _, sc := range fixtureScopes {
		scopes[sc] = true
	}
	s.keys[s.creds.ClientID] = &apiKey{
		ClientID:          s.creds.ClientID,
		APIKey:            s.creds.APIKey,
		SigningKey:        s.creds.SigningKey,
		Scopes:            scopes,
		SignatureRequired: true,
		Env:               s.creds.Environment,
	}
	for _, a := range fixtureAssets() {
		s.assets = append(s.assets, a)
		s.assetByCode[a.Code] = a
	}
	if !s.opts.noMember {
		_, _ = s.createMemberLocked(MemberSeed{
			ExternalID: DefaultMemberExternalID,
			KYCLevel:   1,
			Balances:   map[string]string{"USDT": "1000.000000", "USDC": "500.000000"},
		})
	}
	for _, m := range s.opts.members {
		if _, err := s.createMemberLocked(m); err != nil {
			panic(fmt.Sprintf("simulator: seed member %q: %v", m.ExternalID, err))
		}
	}
	// Merchant prepaid starts funded so merchant_hosted flows work out of the box.
	for _, code := range []string{"USDT", "USDC"} {
		amt, _ := s.amount(code, "100000")
		_ = s.ledger.Transfer(s.clock.Now(), "fixture: merchant prepaid", code, amt, AccountWorld, AccountMerchantPrepaid)
	}
}

func fixtureAssets() []*asset {
	return []*asset{
		{Code: "USDT", Name: "Tether USD", LedgerScale: 6, DisplayScale: 2, Enabled: true, Networks: []network{
			{Network: "TRON", NetworkName: "Tron (TRC20)", DepositEnabled: true, MinDeposit: "1.000000", ConfirmationsRequired: 20, DepositETAMinutes: 3,
				WithdrawEnabled: true, MinWithdraw: "10.000000", MaxWithdraw: "100000.000000", WithdrawFeeFixed: "1.000000", WithdrawCoolingHours: 0, WithdrawETAMinutes: 5, WithdrawRequireKYCLevel: 1},
			{Network: "ETH", NetworkName: "Ethereum (ERC20)", DepositEnabled: true, MinDeposit: "10.000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
		{Code: "USDC", Name: "USD Coin", LedgerScale: 6, DisplayScale: 2, Enabled: true, Networks: []network{
			{Network: "ETH", NetworkName: "Ethereum (ERC20)", DepositEnabled: true, MinDeposit: "10.000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: true, MinWithdraw: "10.000000", MaxWithdraw: "50000.000000", WithdrawFeeFixed: "2.000000", WithdrawCoolingHours: 24, WithdrawETAMinutes: 10, WithdrawRequireKYCLevel: 1},
			{Network: "SOL", NetworkName: "Solana", DepositEnabled: false, DepositUnavailableReason: "maintenance", MinDeposit: "1.000000", ConfirmationsRequired: 32, DepositETAMinutes: 1,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
		{Code: "BTC", Name: "Bitcoin", LedgerScale: 8, DisplayScale: 6, Enabled: true, Networks: []network{
			{Network: "BTC", NetworkName: "Bitcoin", DepositEnabled: true, MinDeposit: "0.00010000", ConfirmationsRequired: 2, DepositETAMinutes: 30,
				WithdrawEnabled: true, MinWithdraw: "0.00100000", MaxWithdraw: "10.00000000", WithdrawFeeFixed: "0.00020000", WithdrawCoolingHours: 24, WithdrawETAMinutes: 60, WithdrawRequireKYCLevel: 2},
		}},
		{Code: "ETH", Name: "Ether", LedgerScale: 18, DisplayScale: 6, Enabled: true, Networks: []network{
			{Network: "ETH", NetworkName: "Ethereum", DepositEnabled: true, MinDeposit: "0.010000000000000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
	}
}

// createMemberLocked creates a member and credits its seed balances from the
// world account. s.mu must be held (or the simulator not yet shared).
func (s *Simulator) createMemberLocked(seed MemberSeed) (*member, error) {
	ext := strings.TrimSpace(seed.ExternalID)
	if ext == "" {
		return nil, fmt.Errorf("external_member_id is required")
	}
	if strings.HasPrefix(ext, "mem_") {
		return nil, fmt.Errorf("external_member_id may not start with mem_")
	}
	if _, dup := s.membersByExt[ext]; dup {
		return nil, fmt.Errorf("external_member_id %q already exists", ext)
	}
	m := &member{
		ID:              "mem_" + s.newUUID(),
		ExternalID:      ext,
		KYCLevel:        seed.KYCLevel,
		Status:          "active",
		PaymentPriority: []string{"USDT", "USDC", "BTC", "ETH"},
		HasKYCProfile:   seed.KYCLevel > 0,
		CreatedAt:       s.clock.Now(),
	}
	for code, v := range seed.Balances {
		amt, err := s.amount(strings.ToUpper(code), v)
		if err != nil {
			return nil, fmt.Errorf("balance %s: %w", code, err)
		}
		if amt.IsNegative() {
			return nil, fmt.Errorf("balance %s: negative", code)
		}
		if err := s.ledger.Transfer(s.clock.Now(), "seed member balance", strings.ToUpper(code), amt, AccountWorld, MemberAvailable(m.ID)); err != nil {
			return nil, err
		}
	}
	s.members[m.ID] = m
	s.membersByExt[ext] = m
	s.memberOrder = append(s.memberOrder, m)
	s.emit("member.created", "member", strings.TrimPrefix(m.ID, "mem_"), m, "active", 0, nil)
	return m, nil
}
