package mwclient_test

import (
	"reflect"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
)

// boundedLists are the lists without ListParams: catalogues the service
// answers in one page (TestBoundedListsCollect collects each).
var boundedLists = map[string]bool{
	"*qrpay.Client.Schemes": true, "*cards.Client.Products": true,
	"*remittance.Client.Products": true, "*remittance.Client.ConversionDates": true,
}

// The rule for lists, checked on every exported method of every product
// line: a list is an iter.Seq2[T, error], never a slice; a list that takes
// ListParams (directly or embedded in its own params) has a Pages companion
// with the same parameters yielding *mwallet.Page[T]; the lists without
// ListParams are the bounded catalogues, answered in one page.
func TestEveryListFollowsTheListRule(t *testing.T) {
	t.Parallel()
	c, err := mwclient.New("https://api.example.com", mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	catalogues := boundedLists
	resumable := map[string]bool{}
	listParams := reflect.TypeOf(mwallet.ListParams{})
	takesListParams := func(m reflect.Type) bool {
		for i := 0; i < m.NumIn(); i++ {
			in := m.In(i)
			if in == listParams {
				return true
			}
			if in.Kind() == reflect.Struct {
				if f, ok := in.FieldByName("ListParams"); ok && f.Anonymous && f.Type == listParams {
					return true
				}
			}
		}
		return false
	}
	v := reflect.ValueOf(*c)
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Name == "Client" {
			continue
		}
		typ := v.Field(i).Type()
		for j := 0; j < typ.NumMethod(); j++ {
			m := typ.Method(j)
			name := typ.String() + "." + m.Name
			if m.Type.NumOut() == 0 {
				continue
			}
			out := m.Type.Out(0)
			if out.Kind() == reflect.Slice && m.Type.NumIn() > 1 && m.Type.In(1).String() == "context.Context" {
				t.Errorf("%s returns a slice (%s); lists are iterators", name, out)
			}
			if !strings.HasPrefix(out.String(), "iter.Seq2[") || strings.HasSuffix(m.Name, "Pages") {
				continue
			}
			if !takesListParams(m.Type) {
				if !catalogues[name] {
					t.Errorf("%s is a list without ListParams and not a bounded catalogue", name)
				}
				continue
			}
			pagesName := strings.TrimSuffix(m.Name, "s") + "Pages"
			if m.Name == "List" {
				pagesName = "ListPages"
			}
			pm, ok := typ.MethodByName(pagesName)
			if !ok {
				t.Errorf("%s takes ListParams but has no %s companion", name, pagesName)
				continue
			}
			// iter.Seq2[T, error] is func(yield func(T, error) bool).
			item := out.In(0).In(0)
			pg := pm.Type.Out(0).In(0).In(0)
			if pg.Kind() != reflect.Pointer || !strings.HasPrefix(pg.Elem().Name(), "Page[") || pg.Elem().PkgPath() != listParams.PkgPath() {
				t.Errorf("%s.%s yields %s, want *mwallet.Page[%s]", typ, pagesName, pg, item)
			} else if data, ok := pg.Elem().FieldByName("Data"); !ok || data.Type != reflect.SliceOf(item) {
				t.Errorf("%s.%s yields pages of %s, want pages of %s", typ, pagesName, data.Type, item)
			}
			for k := 0; k < m.Type.NumIn(); k++ {
				if m.Type.In(k) != pm.Type.In(k) {
					t.Errorf("%s.%s parameter %d is %s, want %s as for %s", typ, pagesName, k, pm.Type.In(k), m.Type.In(k), m.Name)
				}
			}
			resumable[name] = true
		}
	}
	// The lists that TestEveryResumableListResumesFromItsCursor proves.
	want := map[string]bool{
		"*cards.Client.List": true, "*cards.Client.Transactions": true, "*deposits.Client.List": true,
		"*kyc.Client.QuickBindings": true, "*remittance.Client.List": true, "*remittance.Client.Payees": true,
		"*webhooks.Deliveries.List": true,
	}
	if !reflect.DeepEqual(want, resumable) {
		t.Errorf("resumable lists %v, want %v", resumable, want)
	}
}
