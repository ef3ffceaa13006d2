package merchant

import (
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Table is a KeyTable over a kernel table of keys kept as rows of any type
// R, keyed by client id: Key reads a row as internal/gateway's Key, and Row
// writes a Key back as a row.
type Table[R any] struct {
	T   *kernel.Table[string, R]
	Key func(R) gateway.Key
	Row func(gateway.Key) R
}

// Has reports whether clientID has a key.
func (t Table[R]) Has(tx *kernel.Tx, clientID string) bool { return t.T.Has(tx, clientID) }

// Get is the key of clientID, read by Key (the zero row's when absent).
func (t Table[R]) Get(tx *kernel.Tx, clientID string) (gateway.Key, bool) {
	r, ok := t.T.Get(tx, clientID)
	return t.Key(r), ok
}

// Put stores k under clientID, written by Row.
func (t Table[R]) Put(tx *kernel.Tx, clientID string, k gateway.Key) {
	t.T.Put(tx, clientID, t.Row(k))
}
