package simtest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// quiet is a recorder that keeps messages instead of printing them.
type quiet struct {
	recorder
	msgs []string
}

func (q *quiet) Errorf(format string, args ...any) {
	q.failed = true
	q.msgs = append(q.msgs, "Errorf")
}

func (q *quiet) Fatalf(format string, args ...any) {
	q.failed = true
	q.msgs = append(q.msgs, "Fatalf")
}

func TestCleanupChecksAndCloses(t *testing.T) {
	t.Parallel()
	r := new(quiet)
	sim, client := simtest.New(r)
	if _, err := client.Assets(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(r.cleanups) != 1 {
		t.Fatalf("cleanups = %d, want 1", len(r.cleanups))
	}
	r.end()
	if r.failed {
		t.Errorf("a balanced simulator failed the test: %v", r.msgs)
	}
	resp, err := http.Get(sim.URL() + "/_sim/clock")
	if err == nil {
		resp.Body.Close()
		t.Error("the simulator still answers after the test ended")
	}
}

func TestInvalidOptionFailsAtOnce(t *testing.T) {
	t.Parallel()
	r := new(quiet)
	sim, client := simtest.New(r, simulator.WithMember(simulator.MemberSeed{ExternalID: "x", Balances: map[string]string{"NOPE": "1"}}))
	if sim != nil || client != nil || len(r.msgs) != 1 || r.msgs[0] != "Fatalf" || len(r.cleanups) != 0 {
		t.Errorf("sim = %v, client = %v, messages = %v, cleanups = %d; want nils, one Fatalf, no cleanup", sim, client, r.msgs, len(r.cleanups))
	}
}

func TestWantCode(t *testing.T) {
	t.Parallel()
	apiErr := &mwallet.Error{HTTPStatus: http.StatusNotFound, Code: mwallet.CodeMemberNotFound}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"match", apiErr, nil},
		{"wrapped", errors.Join(errors.New("ctx"), apiErr), nil},
		{"other code", &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeInvalidRequest}, []string{"Fatalf"}},
		{"other status", &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeMemberNotFound}, []string{"Fatalf"}},
		{"not a service error", errors.New("dial tcp: refused"), []string{"Fatalf"}},
	} {
		r := new(quiet)
		simtest.WantCode(r, tc.err, mwallet.CodeMemberNotFound)
		if strings.Join(r.msgs, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: messages = %v, want %v", tc.name, r.msgs, tc.want)
		}
	}
}
