package kyc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

const member1 = simulator.DefaultMemberExternalID

func TestProfileSessionThenReview(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	tk, err := c.KYC.ProfileSession(ctx, member1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tk.ID, "kyc_") || tk.HostedURL == "" || tk.Response.StatusCode != 201 ||
		!tk.ExpiresAt.Equal(simulator.DefaultStart.Add(24*time.Hour)) {
		t.Fatalf("ticket %s expires %s status %d", tk.ID, tk.ExpiresAt, tk.Response.StatusCode)
	}
	for _, s := range []string{tk.String(), tk.GoString(), fmt.Sprintf("%v|%+v|%#v|%s", tk, tk, tk, tk)} {
		if strings.Contains(s, tk.HostedURL) || strings.Contains(s, "/_sim/") {
			t.Fatalf("hosted URL printed: %s", s)
		}
	}
	st, err := c.KYC.Get(ctx, member1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Level != 1 || st.Status != kyc.ReviewApproved || st.MemberID != simtest.MemberID(t, sim, member1) {
		t.Fatalf("before: %+v", st)
	}
	if err := sim.KYC.CompleteSession(tk.ID); err != nil {
		t.Fatal(err)
	}
	if err := sim.KYC.CompleteSession(tk.ID); err == nil {
		t.Fatal("a one-time link was used twice")
	}
	st, err = c.KYC.Get(ctx, member1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Level != 0 || st.Status != kyc.ReviewPending {
		t.Fatalf("after update: level %d status %s", st.Level, st.Status)
	}
	if err := sim.KYC.Approve(member1, 0); err != nil {
		t.Fatal(err)
	}
	if st, _ = c.KYC.Get(ctx, member1); st.Level != 1 || st.Status != kyc.ReviewApproved {
		t.Fatalf("after approval: %+v", st)
	}
	evs := simtest.EventsOf(sim, "kyc.result.updated")
	if len(evs) != 2 {
		t.Fatalf("%d kyc.result.updated events", len(evs))
	}
	for _, e := range evs {
		if e.Object != "kyc" || "mem_"+e.ObjectID != st.MemberID || e.StatusVersion != 0 || e.Status != "updated" {
			t.Fatalf("event %+v", e)
		}
	}
	// A ticket expires after 24 hours.
	tk2, err := c.KYC.ProfileSession(ctx, member1)
	if err != nil {
		t.Fatal(err)
	}
	sim.Clock.Advance(24 * time.Hour)
	if err := sim.KYC.CompleteSession(tk2.ID); err == nil {
		t.Fatal("an expired link was used")
	}
}

func TestProfileSessionNeedsProfile(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "new", KYCLevel: 0}))
	ctx := context.Background()
	_, err := c.KYC.ProfileSession(ctx, "new")
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	_, err = c.KYC.ProfileSession(ctx, "nobody")
	simtest.WantCode(t, err, mwallet.CodeMemberNotFound)
	_, err = c.KYC.ProfileSession(ctx, "")
	if mwallet.CodeOf(err) != mwallet.CodeMemberContextRequired || !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Fatalf("blank member: %v", err)
	}
	st, err := c.KYC.Get(ctx, "new")
	if err != nil || st.Status != kyc.ReviewNone || st.Level != 0 {
		t.Fatalf("%+v %v", st, err)
	}
}

func listBindings(t *testing.T, c *mwclient.Client, member string) []string {
	t.Helper()
	var ids []string
	for b, err := range c.KYC.QuickBindings(context.Background(), member, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
	}
	return ids
}

func TestQuickBindings(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "9.999999"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "nokyc", KYCLevel: 0, Balances: map[string]string{"USDT": "100"}}))
	ctx := context.Background()
	var ids []string
	for i := 0; i < kyc.MaxQuickBindings; i++ {
		b, err := c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{})
		if err != nil {
			t.Fatalf("binding %d: %v", i, err)
		}
		if b.Status != kyc.QuickBindingActive || b.FeeAsset != "USDT" || b.FeeAmount != "10.000000" {
			t.Fatalf("binding %+v", b)
		}
		ids = append(ids, b.ID)
	}
	_, err := c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{})
	simtest.WantCode(t, err, mwallet.CodeQuickKYCLimit)
	if got := simtest.Available(t, sim, member1, "USDT"); got != "950.000000" {
		t.Fatalf("member paid %s", got)
	}
	_, err = c.KYC.CreateQuickBinding(ctx, "poor", kyc.QuickBindingParams{})
	simtest.WantCode(t, err, mwallet.CodeQuickKYCUnpaid)

	// Compensation: the binding leaves the list, its fee comes back, an event with a real version.
	if err := sim.KYC.CompensateQuickBinding(ids[1], "admin", "cap_123"); err != nil {
		t.Fatal(err)
	}
	if err := sim.KYC.CompensateQuickBinding(ids[1], "admin", ""); err == nil {
		t.Fatal("compensated twice")
	}
	got := listBindings(t, c, member1)
	if len(got) != 4 || strings.Contains(strings.Join(got, ","), ids[1]) {
		t.Fatalf("list after compensation %v", got)
	}
	evs := simtest.EventsOf(sim, "kyc.quick.compensated")
	if len(evs) != 1 {
		t.Fatalf("%d compensation events", len(evs))
	}
	e := evs[0]
	if e.Object != "quick_kyc_binding" || e.ObjectID != ids[1] || e.Status != "compensated" || e.StatusVersion <= 1_000_000 ||
		e.Extra["compensation_source"] != "admin" || e.Extra["application_id"] != "cap_123" {
		t.Fatalf("event %+v", e)
	}
	if got := simtest.Available(t, sim, member1, "USDT"); got != "960.000000" {
		t.Fatalf("after compensation the member holds %s", got)
	}
	// A slot is free again.
	if _, err := c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{}); err != nil {
		t.Fatal(err)
	}

	// Without a genuine L1, an unused e-mail is required. The fields carry
	// keys only: the contract gives reasons on POST /v1/remit/payees alone.
	_, err = c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{})
	if e := simtest.WantCode(t, err, mwallet.CodeInvalidFields); len(e.Fields) != 1 || e.Fields[0].Key != "email" || e.Fields[0].Reason != "" {
		t.Fatalf("fields %+v", e.Fields)
	}
	if _, err := c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{Email: "a@example.com"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{Email: "A@example.com"})
	simtest.WantCode(t, err, mwallet.CodeInvalidFields)
	_, err = c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{Email: "Name <a@example.com>"})
	if !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Fatalf("display-name e-mail: %v", err)
	}

	if err := sim.KYC.SetQuick(true, 0); err != nil {
		t.Fatal(err)
	}
	_, err = c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{Email: "b@example.com"})
	simtest.WantCode(t, err, mwallet.CodeQuickKYCExhausted)
	if err := sim.KYC.SetQuick(false, -1); err != nil {
		t.Fatal(err)
	}
	_, err = c.KYC.CreateQuickBinding(ctx, "nokyc", kyc.QuickBindingParams{Email: "b@example.com"})
	simtest.WantCode(t, err, mwallet.CodeQuickKYCDisabled)
}

func TestQuickBindingFeeFromPrepaid(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	ctx := context.Background()
	b, err := c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantPrepaid, "USDT"); got != "99990.000000" {
		t.Fatalf("prepaid %s", got)
	}
	if got := simtest.Available(t, sim, member1, "USDT"); got != "1000.000000" {
		t.Fatalf("member %s", got)
	}
	if err := sim.KYC.CompensateQuickBinding(b.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	e := simtest.EventsOf(sim, "kyc.quick.compensated")[0]
	if e.Extra["compensation_source"] != "auto" || e.Extra["application_id"] != nil {
		t.Fatalf("event extra %+v", e.Extra)
	}
	if err := sim.Merchant.WithdrawPrepaid("USDT", ""); err != nil {
		t.Fatal(err)
	}
	_, err = c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{})
	simtest.WantCode(t, err, mwallet.CodeQuickKYCUnpaid)
}

func TestControlAPIRoutes(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	post := func(path, body string) int {
		t.Helper()
		resp, err := http.Post(sim.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post("/_sim/kyc/"+member1+"/update", ""); st != 200 {
		t.Fatalf("update: HTTP %d", st)
	}
	if s, _ := c.KYC.Get(ctx, member1); s.Level != 0 {
		t.Fatalf("level %d after update", s.Level)
	}
	if st := post("/_sim/kyc/"+member1+"/approve", `{"level":2}`); st != 200 {
		t.Fatalf("approve: HTTP %d", st)
	}
	if s, _ := c.KYC.Get(ctx, member1); s.Level != 2 || s.Status != kyc.ReviewApproved {
		t.Fatalf("after approval %+v", s)
	}
	tk, err := c.KYC.ProfileSession(ctx, member1)
	if err != nil {
		t.Fatal(err)
	}
	if st := post("/_sim/kyc/sessions/"+tk.ID+"/complete", ""); st != 200 {
		t.Fatalf("session complete: HTTP %d", st)
	}
	// The profile is back in review (level 0): a quick profile needs an e-mail.
	b, err := c.KYC.CreateQuickBinding(ctx, member1, kyc.QuickBindingParams{Email: "m1@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if st := post("/_sim/kyc/quick/"+b.ID+"/compensate", `{"compensation_source":"admin"}`); st != 200 {
		t.Fatalf("compensate: HTTP %d", st)
	}
	if st := post("/_sim/members/"+member1+"/status", `{"status":"banned"}`); st != 200 {
		t.Fatalf("member status: HTTP %d", st)
	}
	if st := post("/_sim/members/"+member1+"/status", `{"status":"sleeping"}`); st != 400 {
		t.Fatalf("unknown member status: HTTP %d", st)
	}
}
