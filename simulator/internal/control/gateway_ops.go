package control

import (
	"net/http"
	"strings"
	"time"
)

// The control operations on the gateway: the request journal
// (Requests.List, Requests.Reset), a request played as still in progress
// (Requests.StartInProgress) and the fault table (Faults.List,
// Faults.Inject, Faults.Clear), over the declaring package's run of one op
// X. The journal's rows R and the faults F are the declaring package's
// public types, and what the ops do to the gateway it gives as func values
// (RequestViews, FaultViews).

// The inputs of the gateway's ops.
type (
	// JournalQuery is the query of GET /_sim/requests: the newest limit
	// requests (default all).
	JournalQuery struct {
		Limit *int `query:"limit" json:"-" dom:"count"`
	}
	// InProgressIn is the body of POST /_sim/requests/in_progress.
	InProgressIn struct {
		Method         string   `json:"method" dom:"write_method,req"`
		Path           string   `json:"path" dom:"business_target,req"`
		IdempotencyKey string   `json:"idempotency_key" dom:"idempotency_key,req"`
		Body           string   `json:"body" dom:"body_text"`
		Seconds        *float64 `json:"seconds" dom:"seconds_in_progress"`
	}
	// FaultIn is the body of POST /_sim/faults, the fields of the declaring
	// package's public fault (Hold and Held only Go code can give).
	FaultIn struct {
		Method  string          `json:"method" dom:"fault_method"`
		Path    string          `json:"path" dom:"business_path,req"`
		Count   int             `json:"count" dom:"count"`
		Kind    string          `json:"kind" dom:"fault_kind,req"`
		Status  int             `json:"status" dom:"fault_status"`
		Code    string          `json:"code" dom:"error_code"`
		DelayMS int             `json:"delay_ms" dom:"delay_ms"`
		Hold    <-chan struct{} `json:"-" dom:"-"`
		Held    chan<- string   `json:"-" dom:"-"`
		OneIn   int             `json:"one_in" dom:"count"`
	}
)

// Duration is the time the request stays in progress (def when the input
// gives none).
func (in *InProgressIn) Duration(def time.Duration) time.Duration {
	if in.Seconds == nil {
		return def
	}
	return time.Duration(*in.Seconds * float64(time.Second))
}

// RequestViews are what the journal's ops need of the declaring package.
type RequestViews[X, R any] struct {
	// Journal is the request journal, oldest first; Reset empties it.
	Journal func(x X) []R
	Reset   func(x X) error
	// Endpoint refuses a write method and path no business endpoint
	// serves (BusinessEndpoint): a request in progress there would never
	// be met.
	Endpoint func(x X, method, target string) error
	// StartInProgress plays a request still running for d.
	StartInProgress func(x X, method, target, key string, body []byte, d time.Duration) error
	// Now is the clock's reading; DefaultInProgress how long a request
	// stays in progress when the input says nothing.
	Now               func(x X) time.Time
	DefaultInProgress time.Duration
}

// RequestOps are the journal's ops, by Go method.
type RequestOps[X any] struct {
	List, Reset, StartInProgress *Op[X]
}

// NewRequestOps declares the journal's ops.
func NewRequestOps[X, R any](v RequestViews[X, R]) *RequestOps[X] {
	return &RequestOps[X]{
		List: Def[X, JournalQuery]{Route: "GET /_sim/requests", Name: "Requests.List", NoCall: true,
			Run: func(x X, in *JournalQuery) (any, error) {
				out := v.Journal(x)
				if in.Limit != nil && *in.Limit < len(out) {
					out = out[len(out)-*in.Limit:]
				}
				return out, nil
			},
			Reply: func(_ X, _ *JournalQuery, out any) (int, any) { return http.StatusOK, List(out.([]R)) },
		}.Op(),
		Reset: Def[X, NoInput]{
			Route: "DELETE /_sim/requests", Name: "Requests.Reset",
			Args: func(*NoInput) []any { return nil },
			Run: func(x X, _ *NoInput) (any, error) {
				if err := v.Reset(x); err != nil {
					return nil, err
				}
				return List([]R{}), nil
			},
		}.Op(),
		StartInProgress: Def[X, InProgressIn]{
			Route: "POST /_sim/requests/in_progress", Name: "Requests.StartInProgress", Status: http.StatusCreated,
			Args: func(in *InProgressIn) []any {
				return []any{in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), in.Duration(v.DefaultInProgress)}
			},
			Rules: func(x X, in *InProgressIn) error { return v.Endpoint(x, in.Method, in.Path) },
			Run: func(x X, in *InProgressIn) (any, error) {
				d := in.Duration(v.DefaultInProgress)
				if err := v.StartInProgress(x, in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), d); err != nil {
					return nil, err
				}
				return map[string]any{
					"method": strings.ToUpper(in.Method), "path": in.Path, "idempotency_key": in.IdempotencyKey,
					"until": v.Now(x).Add(d).UTC().Format(time.RFC3339),
				}, nil
			},
		}.Op(),
	}
}

// FaultViews are what the fault table's ops need of the declaring package.
type FaultViews[X, F any] struct {
	// Fault is the public fault of an input.
	Fault func(FaultIn) F
	// List is the faults still armed; Inject arms one, Clear removes
	// every one.
	List   func(x X) []F
	Inject func(x X, f F) error
	Clear  func(x X) error
}

// FaultOps are the fault table's ops, by Go method.
type FaultOps[X any] struct {
	List, Inject, Clear *Op[X]
}

// NewFaultOps declares the fault table's ops.
func NewFaultOps[X, F any](v FaultViews[X, F]) *FaultOps[X] {
	return &FaultOps[X]{
		List: Def[X, NoInput]{Route: "GET /_sim/faults", Name: "Faults.List", NoCall: true, Run: func(x X, _ *NoInput) (any, error) {
			return v.List(x), nil
		}, Reply: func(_ X, _ *NoInput, out any) (int, any) { return http.StatusOK, List(out.([]F)) }}.Op(),
		Inject: Def[X, FaultIn]{
			Route: "POST /_sim/faults", Name: "Faults.Inject", Status: http.StatusCreated,
			Args: func(in *FaultIn) []any { return []any{v.Fault(*in)} },
			Run: func(x X, in *FaultIn) (any, error) {
				if err := v.Inject(x, v.Fault(*in)); err != nil {
					return nil, err
				}
				return List(v.List(x)), nil
			},
		}.Op(),
		Clear: Def[X, NoInput]{
			Route: "DELETE /_sim/faults", Name: "Faults.Clear",
			Args: func(*NoInput) []any { return nil },
			Run: func(x X, _ *NoInput) (any, error) {
				if err := v.Clear(x); err != nil {
					return nil, err
				}
				return List([]F{}), nil
			},
		}.Op(),
	}
}
