package control

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// The domain registry is data: tables of the key a dom tag names to its
// domain. The declaring package gives the tables that name its own sets and
// look objects up in its state; Standard gives the codes, formats, texts
// and numbers, which need of it only the lookups and bounds in Lookups;
// Domains merges the tables into the registry NewRegistry reads and
// applies the rules of earlier builds (Legacy).

// Lookups are what the standard domains need of the declaring package.
type Lookups[X any] struct {
	// BusinessPath reports a path of the business API, or a prefix of one
	// ending in *.
	BusinessPath func(x X, p string) bool
	// OutcomeMode reports a valid outcome mode.
	OutcomeMode func(s string) bool
	// MaxAdvance bounds one advance of the clock; MaxInProgress a request
	// in progress; MaxDelayMS a fault's delay.
	MaxAdvance, MaxInProgress time.Duration
	MaxDelayMS                int64
}

// Domains merges tables into one registry, then applies Legacy. It reports
// what is wrong with the tables: a key two tables give (the first table's
// domain is kept) and a key Legacy names that no table gives. The
// declaring package's tests require none.
func Domains[X any](tables ...map[string]*Domain[X]) (map[string]*Domain[X], []string) {
	reg := map[string]*Domain[X]{}
	var problems []string
	for _, t := range tables {
		for _, key := range slices.Sorted(maps.Keys(t)) {
			if reg[key] != nil {
				problems = append(problems, fmt.Sprintf("control domain %q registered twice", key))
				continue
			}
			reg[key] = t[key]
		}
	}
	for _, key := range Legacy(reg) {
		problems = append(problems, fmt.Sprintf("control domain %q has a rule of earlier builds but is not registered", key))
	}
	return reg, problems
}

// Standard are the domains of codes, formats, texts and numbers.
func Standard[X any](l Lookups[X]) map[string]*Domain[X] {
	anyValue := AnyValue[X]
	return map[string]*Domain[X]{
		// Codes and formats.
		"currency": FormatOf("ISO 4217 currency code", "an ISO 4217 alphabetic currency code such as THB",
			func(_ X, v any) bool { return api.IsCurrency(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "QQQ", "TH", "XXX"),
		"country": FormatOf("ISO 3166 country code", "an ISO 3166-1 alpha-2 country code such as SG",
			func(_ X, v any) bool { return api.IsCountry(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "XX", "ZZ", "SGP"),
		"business_path": FormatOf("business API path",
			"a path of the business API (/v1/...) a business endpoint serves or the contract names, or a prefix of one ending in *",
			func(x X, v any) bool { return l.BusinessPath(x, v.(string)) }, "/v1/deposit", "/v2/assets", "v1/assets"),
		"business_target": FormatOf("business API request target",
			"a path of the business API (/v1/...) with its query as it will be sent, without control characters",
			func(x X, v any) bool {
				s := v.(string)
				p, _, _ := strings.Cut(s, "?")
				return CleanText(s, 2048) && l.BusinessPath(x, p) && !strings.HasSuffix(p, "*")
			}, "/v1/deposit", "/v1/assets\n"),
		"idempotency_key": FormatOf("idempotency key", "a UUID-shaped key (8-4-4-4-12 hex digits)",
			func(_ X, v any) bool { return api.UUIDShaped(v.(string)) }, "not-a-uuid"),
		"decimal": FormatOf("decimal amount", "a non-negative decimal string such as 12.5",
			func(_ X, v any) bool { return IsDecimal(v.(string), false) }, "-1", "1.2.3", "ten"),
		"positive_decimal": FormatOf("positive decimal", "a decimal string above 0 such as 0.0291",
			func(_ X, v any) bool { return IsDecimal(v.(string), true) }, "0", "-0.5", "abc"),
		"minor_amount": FormatOf("amount in minor units", "a non-negative integer string in the smallest unit",
			func(_ X, v any) bool { return IsMinorUnits(v.(string)) }, "-1", "12.50", "ten"),
		"url": FormatOf("webhook URL", "an absolute http or https URL without control characters",
			func(_ X, v any) bool { return IsHTTPURL(v.(string)) }, "ftp://example.com/hook", "/hook", "http://exa mple.com/\n"),
		"go_duration": FormatOf("duration", "a non-negative Go duration of at most ten years, such as 90s or 24h",
			func(_ X, v any) bool {
				d, err := time.ParseDuration(v.(string))
				return err == nil && d >= 0 && d <= l.MaxAdvance
			}, "-5s", "soon", "87700h"),
		"outcome_mode": FormatOf("outcome mode", "manual, immediate or after:<Go duration>, such as after:5m",
			func(_ X, v any) bool { return l.OutcomeMode(v.(string)) }, "later", "after:-1s"),
		"event_extra": FormatOf("event data fields", "an object of lower snake case names to strings, numbers or booleans",
			func(_ X, v any) bool { return EventExtraOK(v) }, map[string]any{"Bad Key": "x"}, map[string]any{"a": map[string]any{"b": 1}}),

		// Texts.
		"text": TextOf[X]("text", 256),
		"name": TextOf[X]("name", 64),
		"member_ref": FormatOf("external member id",
			"text of at most 64 characters without control characters, not starting with mem_",
			func(_ X, v any) bool {
				s := strings.TrimSpace(v.(string))
				return CleanText(s, 64) && !strings.HasPrefix(s, "mem_")
			}, "a\x00b", "a\nb", "mem_x", strings.Repeat("m", 65)),
		"body_text": FormatOf("request body text", "text of at most 524288 bytes",
			func(_ X, v any) bool { return len(v.(string)) <= 512<<10 }, strings.Repeat("b", 512<<10+1)),
		"qr_code": TextOf[X]("QR code value", 512),
		"snake_code": FormatOf("code", "a lower snake case code such as payout_rejected",
			func(_ X, v any) bool { return SnakeName(v.(string)) }, "Payout Rejected", "payout\nrejected"),
		"seq":  IntRange[X]("input sequence number", 0, math.MaxInt64-1),
		"step": FormatOf("recording step", "a non-negative integer", func(_ X, v any) bool { return IsMinorUnits(v.(string)) }, "-1", "x"),
		"bin": FormatOf("BIN", "6 to 8 digits", func(_ X, v any) bool {
			b := v.(string)
			return len(b) >= 6 && len(b) <= 8 && IsMinorUnits(b)
		}, "41111", "4111111111", "41111x"),

		// Numbers.
		"seconds_advance": &Domain[X]{Name: "seconds to advance", Want: "a number from 0 to 315360000 (ten years)",
			OK: func(_ X, v any) bool {
				f, _ := ToFloat(v)
				return f >= 0 && f <= l.MaxAdvance.Seconds()
			}, Bad: []any{-5, 315360001}},
		"seconds_in_progress": &Domain[X]{Name: "seconds in progress", Want: "a number above 0 and at most 86400",
			OK: func(_ X, v any) bool {
				f, _ := ToFloat(v)
				return f > 0 && f <= l.MaxInProgress.Seconds()
			}, Bad: []any{0, 86401}},
		"kyc_level":          IntRange[X]("KYC level", 0, 2),
		"kyc_approval_level": IntRange[X]("KYC approval level", 1, 2),
		"count":              IntRange[X]("count", 0, math.MaxInt32),
		"card_limit":         IntRange[X]("card limit", 0, 1_000_000),
		"quota":              IntRange[X]("write quota per minute", 0, 1_000_000),
		"fee_rate":           IntRange[X]("fee rate in basis points", 0, 10000),
		"status_version":     IntRange[X]("status_version", 0, math.MaxInt64-1),
		"fault_status": &Domain[X]{Name: "HTTP error status", Want: "0 (the code's own) or an integer from 400 to 599",
			OK: func(_ X, v any) bool { n, _ := v.(int64); return n == 0 || (n >= 400 && n <= 599) }, Bad: []any{200, 600}},
		"delay_ms": IntRange[X]("delay in milliseconds", 0, l.MaxDelayMS),
		"scale":    IntRange[X]("card scale", 0, 18),

		// Values whose every JSON value of the field's type is in the domain.
		"boolean": &Domain[X]{Name: "boolean", Want: "true or false", OK: anyValue},
		"time":    &Domain[X]{Name: "time", Want: "an RFC 3339 time", OK: anyValue},
	}
}

// Legacy sets what earlier builds checked of the arguments whose domain
// came later: nothing (their lines refused what they refused), or a weaker
// rule. It returns the keys reg lacks, which it skips.
func Legacy[X any](reg map[string]*Domain[X]) (missing []string) {
	set := func(rule func(X, any) bool, keys ...string) {
		for _, key := range keys {
			if d := reg[key]; d != nil {
				d.Legacy = rule
			} else {
				missing = append(missing, key)
			}
		}
	}
	set(AnyValue[X], "http_method", "event_object", "error_code", "currency", "country", "business_path",
		"business_target", "idempotency_key", "decimal", "positive_decimal", "minor_amount", "url", "event_extra", "text",
		"name", "member_ref", "body_text", "qr_code", "bin", "snake_code", "kyc_approval_level", "scale")
	set(func(_ X, v any) bool { f, _ := ToFloat(v); return f >= 0 }, "card_limit", "quota", "count", "status_version")
	set(func(_ X, v any) bool { f, _ := ToFloat(v); return f > 0 }, "seconds_in_progress")
	set(func(_ X, v any) bool { d, err := time.ParseDuration(v.(string)); return err == nil && d >= 0 }, "go_duration")
	return missing
}
