package simulator

// The Recording type; its file format (JSON Lines) is internal/recfile's
// File, and replay.go runs one.

import (
	"errors"
	"io"
	"os"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Recording is the input log of a simulator: its configuration, then every
// input that changed its state, in the order the inputs ran (see
// Simulator.Recording). A simulator started from it (WithRecording, or
// mwallet-sim serve -replay FILE) reaches the same state: the same ids,
// balances, objects, events, deliveries and clock.
//
// Its file format is JSON Lines, version 1: a header line
// {"format":"mwallet-sim-recording","version":1,"config":{...}}, one line
// per input ({"seq","clock","op",...}), and a last line {"op":"end",
// "clock","digest"} with the clock and the state digest when the recording
// was taken. The simulator's
// README describes every field. A recording holds every request as it was
// received, credentials, tokens, signatures and bodies included: it is as
// sensitive as the test data sent to the simulator.
type Recording struct {
	// f is the recording as its file format holds it: the header, the
	// inputs, the clock when it was taken and the state digest then (""
	// when not known).
	f recfile.File[recordingConfig]
	// partial is set on a recording without its end line, read by
	// ReadPartialRecording.
	partial bool
}

// ErrPartialRecording is the error of ReadRecording (inspect it with
// errors.Is) for a recording without its end line: a file cut short (a
// partial download, a copy that stopped), whose replay could not be
// checked against the state it was taken in. ReadPartialRecording reads
// it anyway.
var ErrPartialRecording = errors.New("the recording has no end line: it is cut short")

// Partial reports whether the recording lacks its end line (it was read by
// ReadPartialRecording): a simulator started from it reaches the state
// after the inputs it holds, unchecked, and says so (StateSnapshot's
// PartialReplay, the dashboard).
func (r *Recording) Partial() bool { return r.partial }

// Len returns the number of inputs in the recording.
func (r *Recording) Len() int { return len(r.f.Inputs) }

// WriteTo writes the recording in its file format.
func (r *Recording) WriteTo(w io.Writer) (int64, error) { return recfile.Write(w, &r.f) }

// WriteFile writes the recording to a file (mode 0600: it holds the
// simulator's credentials and everything sent to it).
func (r *Recording) WriteFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := r.WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// ReadRecording reads a recording in its file format. A recording without
// its end line (the last line, which carries the state digest a replay is
// checked against) is refused with an error wrapping ErrPartialRecording.
func ReadRecording(rd io.Reader) (*Recording, error) { return readRecording(rd, false) }

// ReadPartialRecording reads a recording that may lack its end line (a file
// cut short), and drops a last line cut short in the middle. A simulator
// started from such a recording reaches the state after the inputs it
// holds, without the check a whole recording gets, and reports it
// (StateSnapshot.PartialReplay, the dashboard). A whole recording reads as
// with ReadRecording. mwallet-sim serve -replay FILE -replay-partial.
func ReadPartialRecording(rd io.Reader) (*Recording, error) { return readRecording(rd, true) }

func readRecording(rd io.Reader, partial bool) (*Recording, error) {
	f, err := recfile.Read[recordingConfig](rd, partial)
	if err != nil {
		return nil, err
	}
	if !f.Ended && !partial {
		return nil, recfile.CutShort(ErrPartialRecording, len(f.Inputs))
	}
	return &Recording{f: *f, partial: !f.Ended}, nil
}

// ReadRecordingFile reads a recording file (as Recording.WriteFile, GET
// /_sim/recording or a failed simtest test writes it).
func ReadRecordingFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecording(f)
}

// Recording returns the simulator's input log since it started (with a
// data directory: since the directory was created, across restarts).
// Started from it (WithRecording), a simulator reaches the same state.
// Without a data directory the log is kept in memory, up to
// WithRecordingLimit (128 MiB of requests by default); past that Recording
// returns an error. Control API: GET /_sim/recording.
func (s *Simulator) Recording() (*Recording, error) { return readLog(s.wiring.inputs, true) }

// readLog returns the log of l as a Recording: the inputs up to its point
// (inputlog.Log.Recording), with the state digest then when digest is set.
func readLog(l *inputLog, digest bool) (*Recording, error) {
	p, inputs, err := l.Recording(digest, errRecordingLimit)
	if err = dataDirErr(err); err != nil {
		return nil, err
	}
	return &Recording{f: recfile.File[recordingConfig]{Header: p.Header, Inputs: inputs, End: p.End, Digest: p.Digest}}, nil
}

// WithRecording starts the simulator from a recording: it is built with the
// recording's configuration (model, environment, credentials, start, seed,
// members; the options that set these are ignored) and every input of the
// recording is run again in order, without network calls (webhook attempts
// get the receiver answers recorded). New returns an error when the replay
// does not log the same inputs as the recording, or ends in a state whose
// digest is not the recording's (the recording comes from a simulator that
// behaves differently). The simulator then records on from there.
//
// What was in progress when the recording was taken is then completed: a
// request waiting in a delay fault runs its handler (its answer goes
// nowhere), and a webhook flush that had not recorded every attempt gives
// the rest back to the next flush.
func WithRecording(r *Recording) Option { return func(o *options) { o.recording = r } }

// partialReplayOf describes the partial recording r a simulator started
// from, if it is one.
func partialReplayOf(r *Recording) *PartialReplay {
	if r == nil || !r.partial {
		return nil
	}
	return &PartialReplay{Inputs: r.Len(), Note: recfile.CutShortNote(r.Len())}
}
