package deposits

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// call runs the endpoint of method and pattern on the line with body.
func call(t *testing.T, l *Line, tx *kernel.Tx, method, target, body string) (int, any, error) {
	t.Helper()
	for _, e := range l.Endpoints() {
		pattern := e.Pattern
		byID := strings.HasSuffix(pattern, "{id}") && strings.HasPrefix(target, strings.TrimSuffix(pattern, "{id}"))
		if e.Method != method || (pattern != target && !byID) {
			continue
		}
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if strings.HasSuffix(pattern, "{id}") {
			r.SetPathValue("id", strings.TrimPrefix(target, strings.TrimSuffix(pattern, "{id}")))
		}
		c := &api.Request{Tx: tx, Req: r, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Body: []byte(body),
			Member: &api.Member{ID: "mem_1", ExternalID: "m-1", Status: "active"}, Header: http.Header{}}
		if e.Precheck != nil {
			if err := e.Precheck(c); err != nil {
				return 0, nil, err
			}
		}
		return e.Handle(c)
	}
	t.Fatalf("no endpoint %s %s", method, target)
	return 0, nil, nil
}

// TestLineOnItsOwn runs the deposits line on kerneltest's services (a
// platform_hosted merchant that allows USDT): the line needs no other.
func TestLineOnItsOwn(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	svc.Set(kernel.AccountMerchantCustody, "USDT", money.MustParse("0", 6))
	svc.Catalogue = []kernel.Asset{{Code: "USDT", LedgerScale: 6, DisplayScale: 2}}
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel())
	codeOf := func(err error) string {
		var ae *api.Error
		if errors.As(err, &ae) {
			return ae.Code
		}
		return ""
	}
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"credited", `{"asset":"USDT","amount":"12.5","reference":"r1"}`, 201, ""},
		{"duplicate reference answers the first", `{"asset":"USDT","amount":"99","reference":"r1"}`, 200, ""},
		{"asset not allowed", `{"asset":"BTC","amount":"1","reference":"r2"}`, 0, "asset_not_allowed"},
		{"zero", `{"asset":"USDT","amount":"0","reference":"r3"}`, 0, "invalid_request"},
		{"over the single limit", `{"asset":"USDT","amount":"100000.000001","reference":"r4"}`, 0, "limit_exceeded"},
		{"provenance without network", `{"asset":"USDT","amount":"1","reference":"r5","txid":"0xab"}`, 0, "invalid_fields"},
	}
	for _, tt := range tests {
		status, _, err := call(t, l, tx, http.MethodPost, "/v1/deposits", tt.body)
		if status != tt.status || codeOf(err) != tt.code {
			t.Errorf("%s: status %d, code %q (%v); want %d, %q", tt.name, status, codeOf(err), err, tt.status, tt.code)
		}
	}
	if got := svc.Read(kernel.MemberAvailable("mem_1"), "USDT").String(); got != "12.500000" {
		t.Errorf("the member holds %s, want 12.500000", got)
	}
	if got := svc.Read(kernel.AccountMerchantCustody, "USDT").String(); got != "-12.500000" {
		t.Errorf("the custody declaration is %s, want -12.500000", got)
	}
	want := []kernel.Event{{Type: "deposit.credited", Object: "deposit", ObjectID: "1", MemberID: "mem_1", Status: "credited"}}
	if diff := cmp.Diff(want, svc.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got := l.Deposits(tx)
	if len(got) != 1 || got[0].Reference != "r1" || got[0].Amount.String() != "12.500000" {
		t.Errorf("Deposits = %+v", got)
	}
	if _, _, err := call(t, l, tx, http.MethodGet, "/v1/deposits/dep_r1", ""); err != nil {
		t.Errorf("get dep_r1: %v", err)
	}
	if _, _, err := call(t, l, tx, http.MethodGet, "/v1/deposits/dep_nope", ""); codeOf(err) != "not_found" {
		t.Errorf("get dep_nope: %v, want not_found", err)
	}

	// An amount of an asset the catalogue lacks is refused before
	// anything changes.
	delete(svc.Scales, "USDT")
	if _, _, err := call(t, l, tx, http.MethodPost, "/v1/deposits", `{"asset":"USDT","amount":"1","reference":"r6"}`); codeOf(err) != "invalid_request" {
		t.Errorf("unknown scale: %v", err)
	}
	svc.Scales["USDT"] = 6
	if n := len(l.Deposits(tx)); n != 1 {
		t.Errorf("after a refused deposit: %d deposits, want 1", n)
	}

	// A merchant_hosted merchant is refused before anything else.
	svc.Model = kernel.MerchantHosted
	if _, _, err := call(t, l, tx, http.MethodPost, "/v1/deposits", `{"asset":"USDT","amount":"1","reference":"r7"}`); codeOf(err) != "insufficient_scope" {
		t.Errorf("merchant_hosted: %v", err)
	}
}
