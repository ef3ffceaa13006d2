package catalogue

// Fixture is the simulator's catalogue: its assets in catalogue order,
// fresh values on every call.
func Fixture() []*Asset {
	return []*Asset{
		{Code: "USDT", Name: "Tether USD", LedgerScale: 6, DisplayScale: 2, Enabled: true, Networks: []Network{
			{Network: "TRON", NetworkName: "Tron (TRC20)", DepositEnabled: true, MinDeposit: "1.000000", ConfirmationsRequired: 20, DepositETAMinutes: 3,
				WithdrawEnabled: true, MinWithdraw: "10.000000", MaxWithdraw: "100000.000000", WithdrawFeeFixed: "1.000000", WithdrawCoolingHours: 0, WithdrawETAMinutes: 5, WithdrawRequireKYCLevel: 1},
			{Network: "ETH", NetworkName: "Ethereum (ERC20)", DepositEnabled: true, MinDeposit: "10.000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
		{Code: "USDC", Name: "USD Coin", LedgerScale: 6, DisplayScale: 2, Enabled: true, Networks: []Network{
			{Network: "ETH", NetworkName: "Ethereum (ERC20)", DepositEnabled: true, MinDeposit: "10.000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: true, MinWithdraw: "10.000000", MaxWithdraw: "50000.000000", WithdrawFeeFixed: "2.000000", WithdrawCoolingHours: 24, WithdrawETAMinutes: 10, WithdrawRequireKYCLevel: 1},
			{Network: "SOL", NetworkName: "Solana", DepositEnabled: false, DepositUnavailableReason: "maintenance", MinDeposit: "1.000000", ConfirmationsRequired: 32, DepositETAMinutes: 1,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
		{Code: "BTC", Name: "Bitcoin", LedgerScale: 8, DisplayScale: 6, Enabled: true, Networks: []Network{
			{Network: "BTC", NetworkName: "Bitcoin", DepositEnabled: true, MinDeposit: "0.00010000", ConfirmationsRequired: 2, DepositETAMinutes: 30,
				WithdrawEnabled: true, MinWithdraw: "0.00100000", MaxWithdraw: "10.00000000", WithdrawFeeFixed: "0.00020000", WithdrawCoolingHours: 24, WithdrawETAMinutes: 60, WithdrawRequireKYCLevel: 2},
		}},
		{Code: "ETH", Name: "Ether", LedgerScale: 18, DisplayScale: 6, Enabled: true, Networks: []Network{
			{Network: "ETH", NetworkName: "Ethereum", DepositEnabled: true, MinDeposit: "0.010000000000000000", ConfirmationsRequired: 12, DepositETAMinutes: 5,
				WithdrawEnabled: false, WithdrawUnavailableReason: "not_open"},
		}},
	}
}
