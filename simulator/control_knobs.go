package simulator

import (
	"errors"
	"reflect"
	"strings"
)

// The control routes declared with a Go method (control_decl.go) reach,
// over HTTP, the conditions that the documented errors need: a line
// switched off, a product hidden, a card limit, a penalty, a KYC or
// shipping country, a missing subaccount, an issuer refusing a close, funds
// protection, the merchant-level write quota, a request still in progress,
// a signature to replay. Each calls the Go method it is declared with, so
// the two cannot drift apart. This file keeps the helpers they share.

// decodeBool decodes a control body that carries one boolean, field (any
// other field is refused, as decodeControl refuses it), and requires it:
// a missing field is an invalid_request naming it.
func decodeBool(body []byte, field string) (bool, error) {
	in := reflect.New(reflect.StructOf([]reflect.StructField{{
		Name: "Value", Type: reflect.TypeFor[*bool](), Tag: reflect.StructTag(`json:"` + field + `"`),
	}}))
	if err := decodeControl(body, in.Interface()); err != nil {
		return false, err
	}
	b := in.Elem().Field(0).Interface().(*bool)
	if b == nil {
		return false, errInvalidRequest(field + " (true or false) is required")
	}
	return *b, nil
}

// notFoundIf turns a Go-method error about a missing object into not_found.
func notFoundIf(err error) error {
	if err == nil {
		return nil
	}
	if ne := (*NameError)(nil); errors.As(err, &ne) && ne.err != nil {
		return notFoundIf(ne.err)
	}
	var ae *apiError
	var pe *persistError
	if errors.As(err, &ae) || errors.As(err, &pe) || errors.Is(err, errControlNotFound) {
		return controlError(err)
	}
	if strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "member_not_found") {
		return newErr("not_found", err.Error())
	}
	return errInvalidRequest(err.Error())
}
