package control

import (
	"fmt"
	"reflect"
	"strings"
)

// Method resolves a recorded call name to its Go method bound to root, a
// pointer to the struct whose exported fields are the control groups:
// "Field.Method" on root's field, action (the Go method that runs ops by
// action key) for actionName. A name no op of r declares, or one that
// records no call, is an error.
func (r *Registry[X]) Method(root any, actionName string, action reflect.Value, name string) (reflect.Value, error) {
	if name == actionName {
		return action, nil
	}
	o := r.ByName[name]
	if o == nil {
		return reflect.Value{}, fmt.Errorf("simulator: replay: no control method %q", name)
	}
	if o.NoCall {
		return reflect.Value{}, fmt.Errorf("simulator: replay: %q is never recorded as a call", name)
	}
	return BoundMethod(root, name), nil
}

// BoundMethod is the method "Field.Method" of root's exported field Field,
// bound (the zero Value when root has no such field).
func BoundMethod(root any, name string) reflect.Value {
	field, method, _ := strings.Cut(name, ".")
	f := reflect.ValueOf(root).Elem().FieldByName(field)
	if !f.IsValid() {
		return reflect.Value{}
	}
	return f.MethodByName(method)
}
