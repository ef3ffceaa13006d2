package mwallet

import (
	"encoding/json"
	"time"
)

// MarshalJSON writes the error envelope as the service sends it: the wait
// as retry_after in whole seconds (rounded up), expires_at as Unix seconds,
// locked_until as RFC 3339. HTTPStatus, IdempotencyKey and Replayed are not
// part of the envelope and are left out.
func (e Error) MarshalJSON() ([]byte, error) {
	w := struct {
		Type        string       `json:"type"`
		Code        Code         `json:"code"`
		Message     string       `json:"message"`
		RequestID   string       `json:"request_id"`
		LimitType   string       `json:"limit_type,omitempty"`
		LimitScope  string       `json:"limit_scope,omitempty"`
		ChallengeID string       `json:"challenge_id,omitempty"`
		HostedURL   string       `json:"hosted_url,omitempty"`
		ExpiresAt   int64        `json:"expires_at,omitempty"`
		RetryAfter  int64        `json:"retry_after,omitempty"`
		Fields      []FieldError `json:"fields,omitempty"`
		LockedUntil string       `json:"locked_until,omitempty"`
	}{
		Type: e.Type, Code: e.Code, Message: e.Message, RequestID: e.RequestID,
		LimitType: e.LimitType, LimitScope: e.LimitScope, ChallengeID: e.ChallengeID,
		HostedURL: e.HostedURL, Fields: e.Fields,
	}
	if !e.ExpiresAt.IsZero() {
		w.ExpiresAt = e.ExpiresAt.Unix()
	}
	if e.RetryDelay > 0 {
		w.RetryAfter = int64((e.RetryDelay + time.Second - 1) / time.Second)
	}
	if !e.LockedUntil.IsZero() {
		w.LockedUntil = e.LockedUntil.UTC().Format(time.RFC3339)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an error envelope (an error answer's body, or what
// MarshalJSON wrote) as the client does: retry_after in
// seconds, expires_at in Unix seconds, locked_until in RFC 3339, each also
// accepted as a string. It leaves HTTPStatus, IdempotencyKey and Replayed
// unchanged.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w wireError
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Type, e.Code, e.Message, e.RequestID = w.Type, Code(w.Code), w.Message, w.RequestID
	e.LimitType, e.LimitScope, e.ChallengeID, e.HostedURL = w.LimitType, w.LimitScope, w.ChallengeID, w.HostedURL
	e.ExpiresAt, e.RetryDelay, e.LockedUntil = time.Time{}, 0, time.Time{}
	e.fromWireExtras(&w)
	return nil
}
