package replay

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Call runs the recorded Go control call in through fn, the method it
// names: each recorded argument is decoded into a new value of the
// method's parameter type, handed to prepare (as a pointer) and passed.
// It reports whether the method's last result is a non-nil error; err is
// a call the recording cannot make (the arguments do not fit the method).
func Call(fn reflect.Value, in *recfile.Input, prepare func(arg any)) (failed bool, err error) {
	t := fn.Type()
	if t.NumIn() != len(in.Args) {
		return false, fmt.Errorf("simulator: replay: input %d: %s takes %d arguments, the recording has %d", in.Seq, in.Call, t.NumIn(), len(in.Args))
	}
	args := make([]reflect.Value, len(in.Args))
	for i, a := range in.Args {
		v := reflect.New(t.In(i))
		if err := json.Unmarshal(a, v.Interface()); err != nil {
			return false, fmt.Errorf("simulator: replay: input %d: %s argument %d: %w", in.Seq, in.Call, i, err)
		}
		prepare(v.Interface())
		args[i] = v.Elem()
	}
	var out []reflect.Value
	if t.IsVariadic() {
		out = fn.CallSlice(args)
	} else {
		out = fn.Call(args)
	}
	return errorResult(out), nil
}

// errorResult reports whether the results of a method end with a non-nil
// error.
func errorResult(out []reflect.Value) bool {
	if len(out) == 0 {
		return false
	}
	last := out[len(out)-1]
	return last.Kind() == reflect.Interface && last.Type().Implements(reflect.TypeFor[error]()) && !last.IsNil()
}
