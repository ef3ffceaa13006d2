package simulator

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// A seeded random source as state: the PCG generator's state is the value
// of a kernel cell, so a draw is a write of the cell, undone with a refused
// step like every other write, and a state image holds it.

// pcgState is the state of a rand.PCG.
type pcgState struct{ Hi, Lo uint64 }

// newPCGState is the state of rand.NewPCG(seed1, seed2).
func newPCGState(seed1, seed2 uint64) pcgState { return pcgStateOf(rand.NewPCG(seed1, seed2)) }

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

// generator is a seeded random source whose state is a cell.
type generator struct {
	state *kernel.Cell[pcgState]
}

func newGenerator(k *kernel.Kernel, name string, seed1, seed2 uint64, opts ...kernel.Option) generator {
	return generator{state: kernel.NewCell(k, name, newPCGState(seed1, seed2), opts...)}
}

// draw runs f with the generator in its current state and keeps the state
// f leaves it in.
func (g generator) draw(tx *kernel.Tx, f func(r *rand.Rand)) {
	p := g.state.Get(tx).pcg()
	f(rand.New(p))
	g.state.Set(tx, pcgStateOf(p))
}

// uint64 draws a uint64.
func (g generator) uint64(tx *kernel.Tx) (v uint64) {
	g.draw(tx, func(r *rand.Rand) { v = r.Uint64() })
	return v
}

// intN draws an int in [0, n).
func (g generator) intN(tx *kernel.Tx, n int) (v int) {
	g.draw(tx, func(r *rand.Rand) { v = r.IntN(n) })
	return v
}

// uuid draws a UUID v4 (seededUUID).
func (g generator) uuid(tx *kernel.Tx) (v string) {
	g.draw(tx, func(r *rand.Rand) { v = seededUUID(r) })
	return v
}

// copy returns a generator in the current state, apart from the state:
// what the next draws will be, without drawing them.
func (g generator) copy(tx *kernel.Tx) *rand.PCG { return g.state.Get(tx).pcg() }

// legacy is the generator as the state image of recordings of versions 1
// and 2 held it (a *rand.Rand), with its source (the two shared one PCG).
func (g generator) legacy(tx *kernel.Tx) (*image.Rand, *rand.PCG) {
	p := g.state.Get(tx).pcg()
	return &image.Rand{Src: p}, p
}
