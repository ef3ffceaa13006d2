package simulator

import (
	"math/rand/v2"

	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// legacyRandOf is the generator g as the state image of recordings of
// versions 1 and 2 held it (a *rand.Rand), with its source (the two shared
// one PCG).
func legacyRandOf(g ids.Generator, tx *kernel.Tx) (*image.Rand, *rand.PCG) {
	p := g.Copy(tx)
	return &image.Rand{Src: p}, p
}
