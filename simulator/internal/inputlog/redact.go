package inputlog

import (
	"encoding/json"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// What the stepper does not show: the recording keeps all of it, since a
// replay needs it, but the dashboard shows inputs and answers to whoever
// opens it.
var (
	// redactedHeaders are request headers.
	redactedHeaders = []string{"X-Api-Key", "X-Auth-Token", "Authorization", "X-Signature", "X-Nonce"}
	// redactedFields are JSON fields, at any depth of a body, an answer or
	// a call's arguments (matched without case and underscores).
	redactedFields = map[string]bool{
		"pin": true, "newpin": true, "oldpin": true, "currentpin": true, "cvv": true, "cardnumber": true, "pan": true,
		"secret": true, "webhooksecret": true, "apikey": true, "signingkey": true, "authtoken": true, "token": true,
		"accesstoken": true, "sessiontoken": true, "password": true,
	}
	// secretArgs are the positions of the Go control calls' arguments
	// that are credentials.
	secretArgs = map[string][]int{"Keys.Add": {1, 2}}
)

// RedactJSON returns b with the values of the redacted fields (PINs, card
// numbers, secrets, keys, tokens, passwords, at any depth) replaced by
// "[redacted]", or b when it is not JSON or holds none.
func RedactJSON(b []byte) []byte {
	var v any
	if len(b) == 0 || json.Unmarshal(b, &v) != nil {
		return b
	}
	if !redactValue(v) {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

func redactValue(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if redactedFields[strings.ReplaceAll(strings.ToLower(k), "_", "")] {
				if e != nil && e != "" {
					x[k] = "[redacted]"
					changed = true
				}
				continue
			}
			changed = redactValue(e) || changed
		}
	case []any:
		for _, e := range x {
			changed = redactValue(e) || changed
		}
	}
	return changed
}

// redactArgs returns the arguments of a call without credentials.
func redactArgs(in *recfile.Input) []json.RawMessage {
	out := make([]json.RawMessage, len(in.Args))
	for i, a := range in.Args {
		out[i] = RedactJSON(a)
	}
	for _, i := range secretArgs[in.Call] {
		if i < len(out) && string(out[i]) != `""` {
			out[i] = json.RawMessage(`"[redacted]"`)
		}
	}
	return out
}

// RedactInput renders an input for the dashboard (its JSON form) without
// credentials, signatures or card secrets; in itself is not changed.
func RedactInput(in *recfile.Input) json.RawMessage {
	c := *in
	if c.Header != nil {
		c.Header = c.Header.Clone()
		for _, h := range redactedHeaders {
			if c.Header.Get(h) != "" {
				c.Header.Set(h, "[redacted]")
			}
		}
	}
	c.Body = RedactJSON(c.Body)
	if c.Op == recfile.OpCall {
		c.Args = redactArgs(in)
	}
	b, _ := json.Marshal(&c)
	return b
}
