package codes_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/internal/codes"
)

// codes_gen.go is what codes.tsv produces: a change to the table without
// `go generate ./...` (or a hand edit of the generated file) fails here.
func TestGeneratedFileIsCurrent(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	tsv, err := os.ReadFile(filepath.Join(root, "codes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := codes.Parse(tsv)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 53 {
		t.Errorf("codes.tsv lists %d codes; the specification has 53", len(rows))
	}
	want, err := codes.Generate(rows)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "codes_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("codes_gen.go is not current; run go generate in the module root (-want +got):\n%s", diff)
	}
}

func TestParseRefusesBadTables(t *testing.T) {
	t.Parallel()
	const header = "const\tcode\thttp\ttype\tretry\tmeaning\tadvice\n"
	good := "CodeA\ta\t400\tinvalid_request_error\tnew-key\tm\tadvice\n"
	for name, tsv := range map[string]string{
		"empty":           header,
		"wrong header":    "const\tcode\n" + good,
		"six columns":     header + "CodeA\ta\t400\tinvalid_request_error\tnew-key\tm\n",
		"status":          header + "CodeA\ta\t4xx\tinvalid_request_error\tnew-key\tm\tadvice\n",
		"retry class":     header + "CodeA\ta\t400\tinvalid_request_error\tsometimes\tm\tadvice\n",
		"constant":        header + "A\ta\t400\tinvalid_request_error\tnew-key\tm\tadvice\n",
		"code":            header + "CodeA\tA-1\t400\tinvalid_request_error\tnew-key\tm\tadvice\n",
		"duplicate":       header + good + good,
		"no advice":       header + "CodeA\ta\t400\tinvalid_request_error\tnew-key\tm\t \n",
		"type per status": header + good + "CodeB\tb\t400\tapi_error\tnew-key\tm\tadvice\n",
	} {
		if _, err := codes.Parse([]byte(tsv)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), "codes.tsv") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	if rows, err := codes.Parse([]byte("# comment\n" + header + good)); err != nil || len(rows) != 1 {
		t.Errorf("good table: %v, %v", rows, err)
	}
}

// The retry column follows the Retry rules of the specification's Errors
// section, written here as the rules themselves.
func TestRetryColumnFollowsTheSpecRules(t *testing.T) {
	t.Parallel()
	tsv, err := os.ReadFile(filepath.Join("..", "..", "codes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := codes.Parse(tsv)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(r codes.Row) string {
		switch r.Code {
		// 1. Retry with the same idempotency key.
		case "api_error", "upstream_error", "upstream_timeout", "idempotency_in_progress":
			return "same-key"
		case "step_up_required": // ... after the hosted screen
			return "after-step-up"
		// 3. Do not retry.
		case "request_rejected", "insufficient_scope", "ip_not_allowed", "merchant_disabled",
			"product_not_available", "order_not_cancellable", "state_invalid":
			return "never"
		case "rate_limited": // Retry-After
			return "after-wait"
		case "invalid_token": // a new token, then once more
			return "new-token"
		}
		if r.HTTP == 404 { // 3. ... every 404
			return "never"
		}
		return "new-key" // 2. Retry with a new key after fixing input or funds.
	}
	for _, r := range rows {
		if want := rule(r); r.Retry != want {
			t.Errorf("%s: retry class %s, the specification's rules give %s", r.Code, r.Retry, want)
		}
	}
}
