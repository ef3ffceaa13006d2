package control

import "encoding/json"

// ActionIn is the input of the Go method that runs an object action by
// its key (Action): the key, the object id and the JSON body.
type ActionIn struct {
	Key  string `json:"key" dom:"action,req"`
	ID   string `json:"id" dom:"text"`
	Body []byte `json:"body" dom:"body_text"`
}

// ActionOp is the op of the Go method name that runs an object action as
// its route does, with the id and body given (RunAction over host's Host):
// the action's own input (byKey's op), checks and transition, then the
// timers due. Its result is the route's JSON as a json.RawMessage.
func ActionOp[X any](name string, host func(x X) Host[X], byKey func(key string) *Op[X]) *Op[X] {
	return Def[X, ActionIn]{
		Name: name,
		Args: func(in *ActionIn) []any { return []any{in.Key, in.ID, in.Body} },
		Run: func(x X, in *ActionIn) (any, error) {
			out, err := RunAction(host(x), x, byKey(in.Key), in.ID, in.Body)
			if err != nil {
				return nil, err
			}
			return json.RawMessage(out), nil
		},
	}.Op()
}
