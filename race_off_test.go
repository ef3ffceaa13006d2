//go:build !race

package mwallet

// raceEnabled reports a -race build, where allocation counts differ.
const raceEnabled = false
