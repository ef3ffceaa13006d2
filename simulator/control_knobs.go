package simulator

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control routes of this file reach, over HTTP, the conditions that the
// documented errors need: a line switched off, a product hidden, a card
// limit, a penalty, a KYC or shipping country, a missing subaccount, an
// issuer refusing a close, funds protection, the merchant-level write
// quota, a request still in progress, a signature to replay. Each calls the
// Go method it mirrors, so the two cannot drift apart.

// goControlFunc serves one control route by calling Go methods of the
// simulator, which take the state lock themselves. It returns the status and
// the JSON body, or an error (answered as controlError maps it).
type goControlFunc func(r *http.Request, body []byte) (int, any, error)

// controlGo registers a control route on pattern that runs fn without the
// state lock held (fn calls the public Go methods), with the same request
// id, body limit, JSON and error envelope as the other control routes.
func (ctl *controlAPI) controlGo(pattern string, fn goControlFunc) {
	s := ctl.sim
	s.st.controlRoutes = append(s.st.controlRoutes, pattern)
	s.wiring.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		// Not an input of the log itself: the Go methods fn calls are
		// (call0..call3 in record.go), so a replay runs them.
		id := s.controlID()
		w.Header().Set("X-Request-Id", id)
		if rerr != nil || len(body) > maxBodyBytes {
			errorResponse(errInvalidRequest("request body unreadable or larger than 1 MiB"), id).write(w, id)
			return
		}
		status, out, err := fn(r, body)
		if err != nil {
			errorResponse(controlError(err), id).write(w, id)
			return
		}
		writeJSON(w, status, out)
	})
}

// requireBool returns *b, or an invalid_request naming field when it is
// missing.
func requireBool(b *bool, field string) (bool, error) {
	if b == nil {
		return false, errInvalidRequest(field + " (true or false) is required")
	}
	return *b, nil
}

// notFoundIf turns a Go-method error about a missing object into not_found.
func notFoundIf(err error) error {
	if err == nil {
		return nil
	}
	if ne := (*NameError)(nil); errors.As(err, &ne) && ne.err != nil {
		return notFoundIf(ne.err)
	}
	var ae *apiError
	var pe *persistError
	if errors.As(err, &ae) || errors.As(err, &pe) || errors.Is(err, errControlNotFound) {
		return controlError(err)
	}
	if strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "member_not_found") {
		return newErr("not_found", err.Error())
	}
	return errInvalidRequest(err.Error())
}

func (ctl *controlAPI) registerKnobs() {
	ctl.registerCardKnobs()
	ctl.registerLineKnobs()
	ctl.registerGatewayKnobs()
}

func (ctl *controlAPI) registerCardKnobs() {
	s := ctl.sim
	ctl.controlGo("POST /_sim/cards/limits", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			FormFactor string `json:"form_factor"`
			Limit      *int   `json:"limit"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if in.FormFactor != "virtual" && in.FormFactor != "physical" {
			return 0, nil, errInvalidRequest("form_factor must be virtual or physical")
		}
		if in.Limit == nil || *in.Limit < 0 {
			return 0, nil, errInvalidRequest("limit must be 0 or more")
		}
		if err := s.Cards.SetLimit(in.FormFactor, *in.Limit); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"form_factor": in.FormFactor, "limit": *in.Limit}, nil
	})
	ctl.controlGo("POST /_sim/cards/bin_authorizations", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			BINs []string `json:"bins"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if err := s.Cards.SetBINAuthorizations(in.BINs...); err != nil {
			return 0, nil, err
		}
		if in.BINs == nil {
			in.BINs = []string{}
		}
		return http.StatusOK, map[string]any{"bins": in.BINs}, nil
	})
	ctl.controlGo("POST /_sim/cards/products/{id}/enabled", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled *bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Enabled, "enabled")
		if err != nil {
			return 0, nil, err
		}
		if err := s.Cards.SetProductEnabled(r.PathValue("id"), on); err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, map[string]any{"product_id": cardline.WithIDPrefix("cpd_", r.PathValue("id")), "enabled": on}, nil
	})
	ctl.controlGo("POST /_sim/members/{id}/card_penalty", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Outstanding *bool `json:"outstanding"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Outstanding, "outstanding")
		if err != nil {
			return 0, nil, err
		}
		if err := s.Cards.SetPenalty(r.PathValue("id"), on); err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, map[string]any{"member": r.PathValue("id"), "outstanding": on}, nil
	})
	ctl.controlGo("POST /_sim/members/{id}/kyc_country", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Country string `json:"country"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		c := strings.ToUpper(strings.TrimSpace(in.Country))
		if !api.IsAlpha(c, 2) {
			return 0, nil, errInvalidRequest("country must be an ISO 3166 alpha-2 code")
		}
		if err := s.Cards.SetKYCCountry(r.PathValue("id"), c); err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, map[string]any{"member": r.PathValue("id"), "country": c}, nil
	})
	ctl.controlGo("POST /_sim/members/{id}/shipping_addresses", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Country string `json:"country"`
			Default bool   `json:"default"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		c := strings.ToUpper(strings.TrimSpace(in.Country))
		if !api.IsAlpha(c, 2) {
			return 0, nil, errInvalidRequest("country must be an ISO 3166 alpha-2 code")
		}
		id, err := s.Cards.AddShippingAddress(r.PathValue("id"), c, in.Default)
		if err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusCreated, map[string]any{"id": id, "country": c, "is_default": in.Default}, nil
	})
	ctl.controlGo("POST /_sim/cards/{id}/refuse_close", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Refuse *bool `json:"refuse"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Refuse, "refuse")
		if err != nil {
			return 0, nil, err
		}
		if err := s.Cards.SetCloseRefused(r.PathValue("id"), on); err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, map[string]any{"id": cardline.WithIDPrefix("crd_", r.PathValue("id")), "refuse": on}, nil
	})
	ctl.controlGo("POST /_sim/cards/topups/upstream_timeout", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Count *int `json:"count"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		n := 1
		if in.Count != nil {
			n = *in.Count
		}
		if err := s.Cards.TimeoutNextTopUps(n); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"count": n}, nil
	})
	ctl.control("GET /_sim/cards/{id}", func(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		out, err := s.st.cards.CardDetail(tx, r.PathValue("id"))
		if err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, out, nil
	})
	ctl.control("GET /_sim/cards/topups/{id}", func(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		out, err := s.st.cards.TopUp(tx, r.PathValue("id"))
		if err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, out, nil
	})
}

func (ctl *controlAPI) registerLineKnobs() {
	s := ctl.sim
	ctl.controlGo("POST /_sim/kyc/quick", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled *bool `json:"enabled"`
			Pool    *int  `json:"pool"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		tx := s.k.Begin()
		enabled, pool := s.st.kyc.Quick(tx)
		tx.End()
		if in.Enabled != nil {
			enabled = *in.Enabled
		}
		if in.Pool != nil {
			if *in.Pool < 0 {
				return 0, nil, errInvalidRequest("pool must be 0 or more")
			}
			pool = *in.Pool
		}
		if err := s.KYC.SetQuick(enabled, pool); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"enabled": enabled, "pool": pool}, nil
	})
	ctl.controlGo("POST /_sim/members/{id}/funds_protection", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled *bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Enabled, "enabled")
		if err != nil {
			return 0, nil, err
		}
		if err := s.Members.SetFundsProtection(r.PathValue("id"), on); err != nil {
			return 0, nil, notFoundIf(err)
		}
		return http.StatusOK, map[string]any{"member": r.PathValue("id"), "funds_protection": on}, nil
	})
	ctl.controlGo("POST /_sim/merchant/prepaid/withdraw", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Asset  string `json:"asset"`
			Amount string `json:"amount"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if err := s.Merchant.WithdrawPrepaid(in.Asset, in.Amount); err != nil {
			return 0, nil, err
		}
		avail, locked := s.Merchant.PrepaidBalance(strings.ToUpper(strings.TrimSpace(in.Asset)))
		return http.StatusOK, map[string]any{"asset": strings.ToUpper(strings.TrimSpace(in.Asset)), "available": avail.String(), "locked": locked.String()}, nil
	})
	ctl.controlGo("POST /_sim/merchant/pobo_subaccount", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Active *bool `json:"active"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Active, "active")
		if err != nil {
			return 0, nil, err
		}
		if err := s.Merchant.SetPOBOSubaccount(on); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"active": on}, nil
	})
	ctl.controlGo("POST /_sim/qrpay/line", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled *bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		on, err := requireBool(in.Enabled, "enabled")
		if err != nil {
			return 0, nil, err
		}
		if err := s.QRPay.SetEnabled(on); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"enabled": on}, nil
	})
	ctl.controlGo("POST /_sim/qrpay/scenarios", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			CodeValue string   `json:"code_value"`
			Scenarios []string `json:"scenarios"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if in.CodeValue == "" {
			return 0, nil, errInvalidRequest("code_value is required")
		}
		if err := s.QRPay.SetScenario(in.CodeValue, in.Scenarios...); err != nil {
			return 0, nil, err
		}
		if in.Scenarios == nil {
			in.Scenarios = []string{}
		}
		return http.StatusOK, map[string]any{"scenarios": in.Scenarios}, nil
	})
	ctl.controlGo("POST /_sim/qrpay/fiat_rates", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Currency   string `json:"currency"`
			USDPerUnit string `json:"usd_per_unit"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		cur := strings.ToUpper(strings.TrimSpace(in.Currency))
		if !api.IsAlpha(cur, 3) {
			return 0, nil, errInvalidRequest("currency must be an ISO 4217 alphabetic code")
		}
		if err := s.QRPay.SetFiatRate(cur, in.USDPerUnit); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"currency": cur, "usd_per_unit": in.USDPerUnit}, nil
	})
	ctl.controlGo("GET /_sim/qrpay/upstream", func(*http.Request, []byte) (int, any, error) {
		st := s.QRPay.UpstreamCalls()
		return http.StatusOK, map[string]any{"quotes": st.Quotes, "notices": st.Notices}, nil
	})
	ctl.controlGo("GET /_sim/qrpay/orders/{id}/trace", func(r *http.Request, _ []byte) (int, any, error) {
		steps := s.QRPay.Trace(r.PathValue("id"))
		if steps == nil {
			return 0, nil, errNotFound("QR payment order")
		}
		return http.StatusOK, map[string]any{"id": qrpay.OrderID(r.PathValue("id")), "steps": steps}, nil
	})
}

func (ctl *controlAPI) registerGatewayKnobs() {
	s := ctl.sim
	ctl.controlGo("POST /_sim/merchant/write_quota", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			PerMinute *int `json:"per_minute"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if in.PerMinute == nil {
			return 0, nil, errInvalidRequest("per_minute is required (0 removes the quota)")
		}
		if err := s.Merchant.SetWriteQuota(*in.PerMinute); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"per_minute": *in.PerMinute}, nil
	})
	ctl.controlGo("POST /_sim/keys/{client_id}/sign", func(r *http.Request, body []byte) (int, any, error) {
		var in struct {
			Method string `json:"method"`
			Path   string `json:"path"`
			Body   string `json:"body"`
			Nonce  string `json:"nonce"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		sig, err := s.Keys.Sign(r.PathValue("client_id"), in.Method, in.Path, in.Nonce, []byte(in.Body))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, sig, nil
	})
	ctl.controlGo("POST /_sim/requests/in_progress", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Method         string   `json:"method"`
			Path           string   `json:"path"`
			IdempotencyKey string   `json:"idempotency_key"`
			Body           string   `json:"body"`
			Seconds        *float64 `json:"seconds"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		d := defaultInProgress
		if in.Seconds != nil {
			if *in.Seconds <= 0 || *in.Seconds > idempotencyWindow.Seconds() {
				return 0, nil, errInvalidRequest("seconds must be above 0 and at most 86400")
			}
			d = time.Duration(*in.Seconds * float64(time.Second))
		}
		if err := s.Requests.StartInProgress(in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), d); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{
			"method": strings.ToUpper(in.Method), "path": in.Path, "idempotency_key": in.IdempotencyKey,
			"until": s.Clock.Now().Add(d).UTC().Format(time.RFC3339),
		}, nil
	})
}
