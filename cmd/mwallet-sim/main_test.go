package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator"
)

func TestServeAnswersCredentials(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-model", "merchant_hosted", "-client-id", "cli-test"}, &stdout, &stderr,
			func(u string) { urls <- u })
	}()
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		t.Fatalf("serve returned early: %v (%s)", err, stderr.String())
	}

	resp, err := http.Get(base + "/_sim/credentials")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got simulator.Credentials
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("credentials %s: %v", b, err)
	}
	want := simulator.Credentials{
		ClientID: "cli-test", APIKey: simulator.DefaultAPIKey, SigningKey: simulator.DefaultSigningKey,
		WebhookSecret: simulator.DefaultWebhookSecret, MerchantID: simulator.DefaultMerchantID,
		Model: simulator.MerchantHosted, Environment: simulator.Sandbox,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("credentials (-want +got):\n%s", diff)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}

	// The business API answers too.
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/connect/token", nil)
	req.Header.Set("X-Client-Id", "cli-test")
	req.Header.Set("X-Api-Key", simulator.DefaultAPIKey)
	tr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	tr.Body.Close()
	if tr.StatusCode != http.StatusOK {
		t.Errorf("token exchange: %d", tr.StatusCode)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	out := stdout.String()
	for _, w := range []string{"mwallet-sim listening on " + base, "client_id       cli-test", "api_key         " + simulator.DefaultAPIKey, "mwallet-sim stopped"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestServeFlags(t *testing.T) {
	t.Setenv("MWALLET_SIM_SIGNING_KEY", "from-env")
	c, err := parseServe(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != "127.0.0.1:8080" || c.creds.SigningKey != "from-env" || c.creds.APIKey != simulator.DefaultAPIKey || c.clock != "wall" {
		t.Errorf("defaults: %+v", c)
	}
	for _, args := range [][]string{
		{"-model", "self"},
		{"-env", "staging"},
		{"-clock", "sundial"},
		{"-start", "2026-01-01T00:00:00Z"},
		{"-client-id", " "},
		{"extra"},
		{"-nope"},
	} {
		if _, err := parseServe(args, io.Discard); err == nil {
			t.Errorf("parseServe(%q) accepted", args)
		}
	}
	if err := run(context.Background(), []string{"launch"}, io.Discard, io.Discard, nil); err == nil {
		t.Error("unknown command accepted")
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"help"}, &help, io.Discard, nil); err != nil || !strings.Contains(help.String(), "serve") {
		t.Errorf("help: %v %q", err, help.String())
	}
}
