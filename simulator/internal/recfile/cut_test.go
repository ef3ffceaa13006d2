package recfile

import (
	"errors"
	"testing"
)

// TestCutShort checks the wording of a file cut short, and that its error
// wraps the caller's.
func TestCutShort(t *testing.T) {
	cut := errors.New("the recording has no end line: it is cut short")
	tests := []struct {
		inputs   int
		wantErr  string
		wantNote string
	}{
		{0, "simulator: recording: the recording has no end line: it is cut short after 0 inputs (a partial download?); get the whole file, or replay what it holds knowingly with ReadPartialRecording (mwallet-sim serve -replay FILE -replay-partial): the state is then unchecked",
			"started from a recording cut short (no end line): the state after its 0 inputs, not checked against the recorded state"},
		{12, "simulator: recording: the recording has no end line: it is cut short after 12 inputs (a partial download?); get the whole file, or replay what it holds knowingly with ReadPartialRecording (mwallet-sim serve -replay FILE -replay-partial): the state is then unchecked",
			"started from a recording cut short (no end line): the state after its 12 inputs, not checked against the recorded state"},
	}
	for _, tt := range tests {
		err := CutShort(cut, tt.inputs)
		if err.Error() != tt.wantErr || !errors.Is(err, cut) {
			t.Errorf("CutShort(%d) = %q, want %q wrapping cut", tt.inputs, err, tt.wantErr)
		}
		if got := CutShortNote(tt.inputs); got != tt.wantNote {
			t.Errorf("CutShortNote(%d) = %q, want %q", tt.inputs, got, tt.wantNote)
		}
	}
}
