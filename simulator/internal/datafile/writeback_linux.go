//go:build linux && (amd64 || arm64)

package datafile

import (
	"os"
	"syscall"
)

// The flags of sync_file_range(2).
const (
	syncFileRangeWaitBefore = 1
	syncFileRangeWrite      = 2
	syncFileRangeWaitAfter  = 4
)

// writeback starts the writeback of n bytes of f from off
// (sync_file_range(2)), and with wait waits until they are written. It is
// advice: an error is ignored (the file is fsynced at its end anyway).
func writeback(f *os.File, off, n int64, wait bool) {
	flags := uintptr(syncFileRangeWrite)
	if wait {
		flags = syncFileRangeWaitBefore | syncFileRangeWrite | syncFileRangeWaitAfter
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, fd, uintptr(off), uintptr(n), flags, 0, 0)
	})
}
