package remittances

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

type payee struct {
	Seq       int64 // creation sequence, the tie-break of lists (api.PageKey)
	ID        string
	MemberID  string
	Country   string
	Currency  string
	Holder    string
	Account   string
	BankCode  string
	Status    string
	CreatedAt time.Time
}

func (p payee) summary() string {
	a := p.Account
	if len(a) > 4 {
		a = a[len(a)-4:]
	}
	return p.Currency + " ****" + a
}

func payeeKey(p payee) api.PageKey { return api.PageKey{At: p.CreatedAt, Seq: p.Seq} }

// listedPayees returns the payees of member id, oldest first.
func (l *Line) listedPayees(tx *kernel.Tx, id string) []payee {
	x := l.st.payeesOf
	from := x.Search(tx, func(k memberKey) bool { return k.member >= id })
	to := x.Search(tx, func(k memberKey) bool { return k.member > id })
	var out []payee
	if from < to {
		for _, p := range x.Range(tx, from, to) {
			out = append(out, p)
		}
	}
	return out
}

// payeesOf returns m's payees, creating the fixture payees (one per
// corridor) on first use, so members created at any time have them.
func (l *Line) payeesOf(tx *kernel.Tx, m *api.Member) []payee {
	if list := l.listedPayees(tx, m.ID); len(list) > 0 {
		return list
	}
	list := make([]payee, 0, len(remitCorridors))
	for _, c := range remitCorridors {
		n := l.st.nextPayee.Get(tx) + 1
		l.st.nextPayee.Set(tx, n)
		p := payee{
			Seq: tx.NextSeq(), ID: "pye_" + strconv.FormatInt(n, 10), MemberID: m.ID, Country: c.Country, Currency: c.Currency,
			Holder: c.Holder, Account: c.Account, Status: "active", CreatedAt: m.CreatedAt,
		}
		list = append(list, p)
		l.st.payees.Put(tx, p.ID, p)
	}
	return list
}

// payeeOf finds payee id (pye_<digits>) of m; false when it does not
// exist or belongs to someone else.
func (l *Line) payeeOf(tx *kernel.Tx, m *api.Member, id string) (payee, bool) {
	l.payeesOf(tx, m)
	p, ok := l.st.payees.Get(tx, id)
	if !ok || p.MemberID != m.ID {
		return payee{}, false
	}
	return p, true
}

func payeeJSON(p payee) map[string]any {
	return map[string]any{
		"id": p.ID, "corridor": p.Country + "-" + p.Currency, "country": p.Country, "currency": p.Currency,
		"holder": p.Holder, "summary": p.summary(), "status": p.Status, "created_at": p.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// listPayees answers GET /v1/remit/payees, newest first. The response shape
// is inferred: the specification names this endpoint without showing its
// fields.
func (l *Line) listPayees(c *api.Request) (int, any, error) {
	items := l.payeesOf(c.Tx, c.Member)
	env := api.Paginate(items, payeeKey, c.Req.URL.Query())
	page := env.Data.([]payee)
	out := make([]map[string]any, 0, len(page))
	for _, p := range page {
		out = append(out, payeeJSON(p))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// createPayee answers POST /v1/remit/payees with 201 and the payee, or
// invalid_fields with a key and a reason per refused field. The shapes are
// inferred: the specification names this endpoint without showing its fields.
func (l *Line) createPayee(c *api.Request) (int, any, error) {
	var in struct {
		Country       string `json:"country"`
		Currency      string `json:"currency"`
		HolderName    string `json:"holder_name"`
		AccountNumber string `json:"account_number"`
		BankCode      string `json:"bank_code"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	country := strings.ToUpper(strings.TrimSpace(in.Country))
	currency := strings.ToUpper(strings.TrimSpace(in.Currency))
	holder := strings.TrimSpace(in.HolderName)
	account := strings.ReplaceAll(strings.TrimSpace(in.AccountNumber), " ", "")
	var bad []api.FieldReason
	switch {
	case country == "":
		bad = append(bad, api.FieldReason{Key: "country", Reason: "required"})
	case !api.IsAlpha(country, 2):
		bad = append(bad, api.FieldReason{Key: "country", Reason: "must be an ISO 3166 alpha-2 code"})
	}
	switch {
	case currency == "":
		bad = append(bad, api.FieldReason{Key: "currency", Reason: "required"})
	case !api.IsAlpha(currency, 3):
		bad = append(bad, api.FieldReason{Key: "currency", Reason: "must be an ISO 4217 alphabetic code"})
	default:
		if _, ok := isoMinorUnits[currency]; !ok {
			bad = append(bad, api.FieldReason{Key: "currency", Reason: "currency not offered for payees"})
		}
	}
	switch {
	case holder == "":
		bad = append(bad, api.FieldReason{Key: "holder_name", Reason: "required"})
	case utf8.RuneCountInString(holder) > 140:
		bad = append(bad, api.FieldReason{Key: "holder_name", Reason: "at most 140 characters"})
	}
	switch {
	case account == "":
		bad = append(bad, api.FieldReason{Key: "account_number", Reason: "required"})
	case utf8.RuneCountInString(account) < 4 || utf8.RuneCountInString(account) > 34 || !isAlnum(account):
		bad = append(bad, api.FieldReason{Key: "account_number", Reason: "4 to 34 letters and digits"})
	}
	if utf8.RuneCountInString(in.BankCode) > 20 {
		bad = append(bad, api.FieldReason{Key: "bank_code", Reason: "at most 20 characters"})
	}
	if len(bad) > 0 {
		return 0, nil, api.InvalidFieldReasons("invalid payee fields", bad...)
	}
	for _, p := range l.payeesOf(c.Tx, c.Member) {
		if p.Currency == currency && strings.EqualFold(p.Account, account) {
			return 0, nil, api.NewErr("duplicate_resource", "an identical payee exists")
		}
	}
	n := l.st.nextPayee.Get(c.Tx) + 1
	l.st.nextPayee.Set(c.Tx, n)
	p := payee{
		Seq: c.Tx.NextSeq(), ID: "pye_" + strconv.FormatInt(n, 10), MemberID: c.Member.ID, Country: country, Currency: currency,
		Holder: holder, Account: account, BankCode: in.BankCode, Status: "active", CreatedAt: c.Now,
	}
	l.st.payees.Put(c.Tx, p.ID, p)
	return http.StatusCreated, payeeJSON(p), nil
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
