package recfile

import "fmt"

// CutShort is the error of a file without its end line (Read leaves its
// Ended unset) read as a whole one: it wraps cut and says how many inputs
// the file holds and how to replay them anyway.
func CutShort(cut error, inputs int) error {
	return fmt.Errorf("simulator: recording: %w after %d inputs (a partial download?); get the whole file, or replay what it holds knowingly with ReadPartialRecording (mwallet-sim serve -replay FILE -replay-partial): the state is then unchecked", cut, inputs)
}

// CutShortNote describes the state of a simulator started from a file
// without its end line that holds inputs inputs.
func CutShortNote(inputs int) string {
	return fmt.Sprintf("started from a recording cut short (no end line): the state after its %d inputs, not checked against the recorded state", inputs)
}
