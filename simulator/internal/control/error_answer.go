package control

import (
	"errors"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// ErrorAnswer maps an op's error to its envelope: an *api.Error as is;
// then known's answer for an error of the declaring package's own (nil:
// none); an error that is api.ErrControlNotFound or says "not found" as
// not_found; anything else 400 invalid_request.
func ErrorAnswer(err error, known func(error) *api.Error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	if a := known(err); a != nil {
		return a
	}
	if errors.Is(err, api.ErrControlNotFound) || strings.Contains(err.Error(), "not found") {
		return api.NewErr("not_found", err.Error())
	}
	return api.InvalidRequest(err.Error())
}
