package simulator

import (
	"context"
	"encoding/json"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/recipes"
)

// Error recipes: the runnable catalogue of the contract's documented error
// codes, served at GET /_sim/recipes. Running a recipe's steps in order
// against a fresh default simulator makes its last step answer the recipe's
// code with the code's documented HTTP status. A recipe is produced by the
// condition the simulator models for its code; only codes whose endpoint the
// contract does not show are injected, through POST /_sim/faults.
//
// The catalogue and the runner live in internal/recipes; this file holds
// their public types and converts to and from them.
//
// (These are not the event flows of "mwallet-sim trigger", which make the
// simulator emit webhook events.)

// ErrorRecipe is one entry of GET /_sim/recipes.
type ErrorRecipe struct {
	// Code is the error code the recipe produces.
	Code string `json:"code"`
	// Title says how the code is produced, in one line.
	Title string `json:"title"`
	// Injected is true when the contract shows no endpoint for the code, so
	// the recipe injects it with POST /_sim/faults.
	Injected bool `json:"injected"`
	// Steps run in order; the last one's answer is Expect.
	Steps []RecipeStep `json:"steps"`
	// Expect is the last step's answer: Status and Code (equal to Code).
	Expect RecipeExpect `json:"expect"`
	// Note says, for an injected recipe, why the contract shows no endpoint
	// for the code. It is not part of the served format.
	Note string `json:"-"`
}

// RecipeStep is one request of a recipe. Strings may hold {{VAR}} (a value
// saved by an earlier step) and {{new_uuid:NAME}} (a fresh UUID bound to
// NAME at its first use; {{NAME}} reuses it).
type RecipeStep struct {
	// Call is "control" (sent exactly as written, with its headers and
	// nothing else) or "api" (a business call: token, signature, member and
	// idempotency key added by the runner, then Headers applied).
	Call string `json:"call"`
	// Method and Path are the request line; Path holds the query, if any.
	Method string `json:"method"`
	Path   string `json:"path"`
	// Body is the JSON body, if any.
	Body json.RawMessage `json:"body,omitempty"`
	// Member is sent as x-on-behalf-of (api steps only).
	Member string `json:"member,omitempty"`
	// IdempotencyKey is sent as x-idempotency-key (api steps only).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Headers are applied last; they may override anything the runner set.
	Headers map[string]string `json:"headers,omitempty"`
	// Save binds VAR to the answer's field at a dotted path ("data.0.id").
	Save map[string]string `json:"save,omitempty"`
	// ExpectStatus, when set, is the status this step must answer.
	ExpectStatus int `json:"expect_status,omitempty"`
}

// RecipeExpect is the answer of a recipe's last step.
type RecipeExpect struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
}

// RecipeRunner runs error recipes against one simulator over HTTP, as
// GET /_sim/recipes describes them:
//
//   - it reads the fixture credentials once (GET /_sim/credentials);
//   - for an api step it takes a token once per runner (POST
//     /v1/connect/token), sends x-auth-token, x-on-behalf-of (Member) and
//     x-idempotency-key (IdempotencyKey), signs every write with the fixture
//     signing key (x-timestamp from GET /_sim/clock, so a simulator whose
//     clock stands still accepts it, a fresh x-nonce, x-signature), then
//     applies the step's Headers, which may override any of these;
//   - a control step is sent as written, with its Headers and nothing
//     else but the control token (ControlToken) and, on a write without
//     one, Content-Type application/json (the control API refuses writes
//     of any other type);
//   - a body is sent as compact JSON (Content-Type application/json);
//   - strings take {{VAR}} (saved by an earlier step) and
//     {{new_uuid:NAME}} (a fresh UUID bound to NAME at its first use);
//   - Save binds variables to fields of the answer ("data.0.id"), and
//     ExpectStatus stops the recipe when the step answers another status.
//
// One runner serves one simulator; recipes expect a fresh default one each.
type RecipeRunner struct {
	// BaseURL is the simulator's address ("http://127.0.0.1:8080").
	BaseURL string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// ControlToken, when set, is sent in ControlTokenHeader on every
	// control call (a simulator started with WithControlToken).
	ControlToken string
	// Trace, when set, receives every step as it is answered.
	Trace func(RecipeTrace)

	run *recipes.Runner
}

// RecipeTrace is one answered step of a recipe.
type RecipeTrace struct {
	Index     int    // 1-based step number
	Call      string // control or api
	Method    string
	Path      string // as sent, variables replaced
	Status    int
	Code      string // error code of the answer, if any
	RequestID string // X-Request-Id of the answer
}

// RecipeResult is the answer of a recipe's last step.
type RecipeResult struct {
	Status    int
	Code      string
	RequestID string
	Body      []byte
}

// RecipeError reports a recipe that did not run as written: a step that
// failed, or a last answer other than the recipe's Expect.
type RecipeError struct {
	Code   string // the recipe's code
	Step   int    // 1-based step number; 0 for the runner's own calls
	Detail string
}

func (e *RecipeError) Error() string {
	return (&recipes.Error{Code: e.Code, Step: e.Step, Detail: e.Detail}).Error()
}

// ErrorRecipes returns the catalogue served at GET /_sim/recipes: one recipe
// per public error code of the contract except the two reserved ones
// (signature_required and member_suspended, which the service does not
// emit), sorted by code.
func ErrorRecipes() []ErrorRecipe {
	cat := recipes.Catalogue()
	out := make([]ErrorRecipe, len(cat))
	for i, r := range cat {
		steps := make([]RecipeStep, len(r.Steps))
		for j, st := range r.Steps {
			steps[j] = RecipeStep(st)
		}
		out[i] = ErrorRecipe{Code: r.Code, Title: r.Title, Injected: r.Injected, Steps: steps, Expect: RecipeExpect(r.Expect), Note: r.Note}
	}
	return out
}

// Run runs r's steps in order and checks that the last answer is r.Expect.
// It returns the last answer, and a *RecipeError when a step fails or the
// answer differs.
func (rr *RecipeRunner) Run(ctx context.Context, r ErrorRecipe) (RecipeResult, error) {
	if rr.run == nil {
		rr.run = &recipes.Runner{Host: recipeHost{}, ControlTokenHeader: ControlTokenHeader}
	}
	run := rr.run
	run.BaseURL, run.HTTPClient, run.ControlToken, run.Trace = rr.BaseURL, rr.HTTPClient, rr.ControlToken, nil
	if trace := rr.Trace; trace != nil {
		run.Trace = func(tr recipes.Trace) { trace(RecipeTrace(tr)) }
	}
	in := recipes.Recipe{Code: r.Code, Title: r.Title, Injected: r.Injected, Steps: make([]recipes.Step, len(r.Steps)), Expect: recipes.Expect(r.Expect), Note: r.Note}
	for i, st := range r.Steps {
		in.Steps[i] = recipes.Step(st)
	}
	res, err := run.Run(ctx, in)
	if re, ok := err.(*recipes.Error); ok {
		err = &RecipeError{Code: re.Code, Step: re.Step, Detail: re.Detail}
	}
	return RecipeResult(res), err
}

// recipeHost is what the recipe runner needs of the simulator: its request
// signature and the control API's namespace.
type recipeHost struct{}

func (recipeHost) Sign(signingKey, method, target, ts, nonce string, body []byte) string {
	return pipeline.Sign(signingKey, method, target, ts, nonce, body)
}

func (recipeHost) IsControlPath(target string) bool { return pipeline.IsControlPath(target) }
