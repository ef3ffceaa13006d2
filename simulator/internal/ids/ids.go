// Package ids is the simulator's seeded random source as state: the
// kernel's id service (kernel.Services' NewUUID and RandIntN), and the
// gateway's request ids, token values and fault draws.
//
// The PCG generator's state is the value of a kernel cell, so a draw is a
// write of the cell, undone with a refused step like every other write,
// and a snapshot holds it; a simulator with a fixed seed issues the same
// ids run after run.
package ids

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// pcgState is the state of a rand.PCG.
type pcgState struct{ Hi, Lo uint64 }

func pcgStateOf(p *rand.PCG) pcgState {
	b, _ := p.MarshalBinary() // "pcg:" hi lo, big endian
	return pcgState{Hi: binary.BigEndian.Uint64(b[4:12]), Lo: binary.BigEndian.Uint64(b[12:20])}
}

// pcg returns a generator in state s.
func (s pcgState) pcg() *rand.PCG {
	b := make([]byte, 20)
	copy(b, "pcg:")
	binary.BigEndian.PutUint64(b[4:12], s.Hi)
	binary.BigEndian.PutUint64(b[12:20], s.Lo)
	p := new(rand.PCG)
	_ = p.UnmarshalBinary(b)
	return p
}

// Generator is a seeded random source whose state is a kernel cell.
type Generator struct {
	state *kernel.Cell[pcgState]
}

// New registers the generator's cell name in k, in the state of
// rand.NewPCG(seed1, seed2).
func New(k *kernel.Kernel, name string, seed1, seed2 uint64, opts ...kernel.Option) Generator {
	return Generator{state: kernel.NewCell(k, name, pcgStateOf(rand.NewPCG(seed1, seed2)), opts...)}
}

// draw runs f with the generator in its current state and keeps the state
// f leaves it in.
func (g Generator) draw(tx *kernel.Tx, f func(r *rand.Rand)) {
	p := g.state.Get(tx).pcg()
	f(rand.New(p))
	g.state.Set(tx, pcgStateOf(p))
}

// Uint64 draws a uint64.
func (g Generator) Uint64(tx *kernel.Tx) (v uint64) {
	g.draw(tx, func(r *rand.Rand) { v = r.Uint64() })
	return v
}

// IntN draws an int in [0, n).
func (g Generator) IntN(tx *kernel.Tx, n int) (v int) {
	g.draw(tx, func(r *rand.Rand) { v = r.IntN(n) })
	return v
}

// UUID draws a UUID v4.
func (g Generator) UUID(tx *kernel.Tx) (v string) {
	g.draw(tx, func(r *rand.Rand) { v = uuidOf(r) })
	return v
}

// Copy returns a source in the generator's current state, apart from it:
// what the next draws will be, without drawing them.
func (g Generator) Copy(tx *kernel.Tx) *rand.PCG { return g.state.Get(tx).pcg() }

// uuidOf returns a UUID v4 of 16 bytes drawn from r.
func uuidOf(r *rand.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
