//go:build !unix

package datafile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Lock takes the lock of a data directory where flock is not available:
// DIR/lock is created exclusively and removed on Close. A process that is
// killed leaves it behind; remove it by hand once no simulator uses the
// directory.
func Lock(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		b, _ := os.ReadFile(path)
		return nil, fmt.Errorf("in use by another simulator (process %s), or left behind by one that was killed: remove %s if no simulator uses the directory", string(b), path)
	}
	if err != nil {
		return nil, err
	}
	_, _ = f.WriteString(strconv.Itoa(os.Getpid()))
	return &lockFile{f: f, path: path}, nil
}

type lockFile struct {
	f    *os.File
	path string
}

func (l *lockFile) Close() error {
	_ = l.f.Close()
	return os.Remove(l.path)
}
