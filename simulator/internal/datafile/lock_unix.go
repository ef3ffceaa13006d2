//go:build unix

package datafile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// Lock takes the lock of a data directory: an exclusive flock on
// DIR/lock, released by the kernel when the process ends, however it ends.
// The file holds the holder's process id, for the refusal's message.
func Lock(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	// A lock released a moment ago may still be held for a few
	// milliseconds by a child process forked meanwhile (by any goroutine
	// of the releasing process) that has not yet reached exec, where its
	// copy of the descriptor closes: try again for up to half a second
	// before refusing.
	for i := 0; i < 20 && errors.Is(err, syscall.EWOULDBLOCK); i++ {
		time.Sleep(25 * time.Millisecond)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		b, _ := os.ReadFile(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := strings.TrimSpace(string(b))
			if holder == "" {
				holder = "unknown"
			}
			return nil, fmt.Errorf("in use by another simulator (process %s): one process per data directory", holder)
		}
		return nil, err
	}
	// The holder's process id is written once the directory is accepted
	// (store.claim): a refused start changes no byte.
	return f, nil
}
