//go:build unix

package simulator

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system, every
// thread: the garbage collector's included), for benchmarks on a shared
// machine, where the CPU a run takes varies less than its wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
