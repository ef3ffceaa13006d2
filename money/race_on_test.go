//go:build race

package money_test

// raceEnabled reports a -race build, where allocation counts differ.
const raceEnabled = true
