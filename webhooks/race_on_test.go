//go:build race

package webhooks_test

// raceEnabled reports a -race build, where allocation counts differ.
const raceEnabled = true
