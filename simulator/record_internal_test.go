package simulator

import (
	"reflect"
	"testing"
)

// TestRecordingConfigCoversOptions lists every field of options: each one
// that shapes the state must be kept in a recording's configuration (or a
// replay would build another fixture); the others are named here with the
// reason they are not.
func TestRecordingConfigCoversOptions(t *testing.T) {
	t.Parallel()
	inConfig := map[string]string{
		"model": "Model", "env": "Environment", "creds": "ClientID APIKey SigningKey WebhookSecret MerchantID",
		"start": "Start", "seed": "Seed", "members": "Members", "noMember": "NoFixtureMember", "bodyKey": "BodyKey",
		"logCaps": "StoreCaps",
	}
	notState := map[string]string{
		"baseURL":        "the address is logged as a base_url input when it changes",
		"dataDir":        "where the log is kept, not what it holds",
		"dataRepair":     "what a start does to a damaged directory before it opens it",
		"snapshotEvery":  "when snapshots are taken",
		"diag":           "where diagnostics go",
		"recording":      "the recording replayed",
		"recordingLimit": "how much of the recording is kept in memory",
		"tls":            "how New serves the simulator (the https address is a base_url input)",
		"http2":          "how New serves the simulator",
		"controlToken":   "who may call the control API (a secret, never recorded)",
		"allowedHosts":   "which Host values the control API answers",
		"caps":           "the caps asked for: the header holds those the log began with (logCaps), a change is a caps input",
		"hostClock":      "the host's clock: every input carries the reading it ran at",
	}
	cfg := reflect.TypeOf(recordingConfig{})
	ot := reflect.TypeOf(options{})
	for i := 0; i < ot.NumField(); i++ {
		name := ot.Field(i).Name
		fields, ok := inConfig[name]
		if !ok {
			if _, ok := notState[name]; !ok {
				t.Errorf("options.%s is neither kept in recordingConfig nor listed as not shaping the state: add it to both recordingConfig (configOf, apply) and this test", name)
			}
			continue
		}
		for _, f := range splitFields(fields) {
			if _, ok := cfg.FieldByName(f); !ok {
				t.Errorf("options.%s: recordingConfig has no field %s", name, f)
			}
		}
	}
	// Every option survives configOf and apply.
	o := defaultOptions()
	o.model, o.env, o.seed, o.noMember = MerchantHosted, Production, 42, true
	o.creds = Credentials{ClientID: "c", APIKey: "a", SigningKey: "s", WebhookSecret: "w", MerchantID: "m"}
	o.members = []MemberSeed{{ExternalID: "x", KYCLevel: 2, Balances: map[string]string{"USDT": "1"}, Status: "frozen", PlatformDirect: true, MerchantID: "other"}}
	c := configOf(o)
	c.BodyKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	back := defaultOptions()
	if err := c.apply(&back); err != nil {
		t.Fatal(err)
	}
	back.bodyKey = nil
	// The log's caps hold until its replay is done; the caps asked for
	// are the replaying simulator's own.
	if back.logCaps == nil || *back.logCaps != o.caps.WithDefaults(defaultCaps) {
		t.Errorf("the log's caps after configOf and apply: %+v, want %+v", back.logCaps, o.caps.WithDefaults(defaultCaps))
	}
	back.logCaps = nil
	if !reflect.DeepEqual(o, back) {
		t.Errorf("options after configOf and apply:\n%+v\nwant\n%+v", back, o)
	}
}

func splitFields(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
