package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// A Go control call runs in a transaction of its own, begun here: the
// control method itself says what it does in the line, and the kernel holds
// the lock.

// inTx runs fn in a transaction of its own.
func inTx(s *Simulator, fn func(tx *kernel.Tx) error) error {
	tx := s.k.Begin()
	defer tx.End()
	return fn(tx)
}

// inTx1 runs fn in a transaction of its own and returns its value.
func inTx1[T any](s *Simulator, fn func(tx *kernel.Tx) (T, error)) (T, error) {
	tx := s.k.Begin()
	defer tx.End()
	return fn(tx)
}

// memberOf is the member of id (mem_ id, bare uuid or external_member_id)
// for a Go control call, or not_found.
func (ctl *controlAPI) memberOf(id string) (*member, error) {
	s := ctl.sim
	if m := s.st.members.ByAny(id); m != nil {
		return m, nil
	}
	return nil, errNotFound("member")
}
