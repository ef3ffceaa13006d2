package inputlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// Summary is one input as the dashboard's stepper lists it
// (GET /_sim/recording/steps).
type Summary struct {
	Seq     int64     `json:"seq"`
	Clock   time.Time `json:"clock"`
	Op      string    `json:"op"`
	Summary string    `json:"summary"`
}

// Summarize describes in in one line, without credentials: a request by
// its method and target (and the member it acts for), a call by its name
// and arguments (each cut to 60 characters), a webhook attempt with the
// receiver's answer.
func Summarize(in *recfile.Input) Summary {
	sum := replay.Describe(in)
	switch in.Op {
	case recfile.OpHTTP:
		if m := in.Header.Get("X-On-Behalf-Of"); m != "" {
			sum += " (" + m + ")"
		}
	case recfile.OpCall:
		args := make([]string, 0, len(in.Args))
		for _, a := range redactArgs(in) {
			v := string(a)
			if len(v) > 60 {
				v = v[:57] + "..."
			}
			args = append(args, v)
		}
		sum = in.Call + "(" + strings.Join(args, ", ") + ")"
	case recfile.OpAttempt:
		res := strconv.Itoa(in.StatusCode)
		if in.Error != "" && in.StatusCode == 0 {
			res = "no answer"
		}
		sum += " → " + res
	case recfile.OpFlushDue:
		sum = "webhook flush: pick the due deliveries"
	case recfile.OpFlushAbort:
		sum = fmt.Sprintf("webhook flush cancelled: %d deliveries back to pending", len(in.Deliveries))
	}
	return Summary{Seq: in.Seq, Clock: in.Clock.UTC(), Op: in.Op, Summary: sum}
}

// Steps summarizes the inputs whose seq is after after, at most limit of
// them (limit > 0); more reports that inputs after them remain.
func Steps(inputs []*recfile.Input, after int64, limit int) (out []Summary, more bool) {
	for _, in := range inputs {
		if in.Seq <= after {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, Summarize(in))
	}
	return out, false
}
