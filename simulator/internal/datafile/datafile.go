// Package datafile is the file layer of the simulator's data directory:
// the checksummed frames the log and the snapshot are made of, reading
// them back and finding frames that still verify after damage, files
// written and truncated durably, and the directory's lock. It knows
// nothing of what the frames hold; the simulator's store gives them their
// meaning.
package datafile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
)

// MaxFrame is the longest frame: a frame longer than this is corrupt.
const MaxFrame = 64 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// CRC is the checksum of frames and snapshots (CRC-32C).
func CRC(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// Frame returns the frame of payload: its length and CRC-32C, little
// endian, then payload.
func Frame(payload []byte) []byte {
	b := make([]byte, 8+len(payload))
	binary.LittleEndian.PutUint32(b, uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(payload, crcTable))
	copy(b[8:], payload)
	return b
}

// ReadFrame reads the frame at the reader's position; io.EOF at a clean
// end, ErrTorn when the frame is cut short or corrupt.
func ReadFrame(r *bufio.Reader) ([]byte, error) {
	var h [8]byte
	n, err := io.ReadFull(r, h[:])
	if n == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, ErrTorn
	}
	size := binary.LittleEndian.Uint32(h[:])
	if size > MaxFrame {
		return nil, ErrTorn
	}
	p := make([]byte, size)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, ErrTorn
	}
	if crc32.Checksum(p, crcTable) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, ErrTorn
	}
	return p, nil
}

// ErrTorn is a frame cut short or corrupt.
var ErrTorn = errors.New("frame cut short or corrupt")

// WriteSynced writes b to a new file at path and syncs it.
func WriteSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return syncClose(f, err)
}

// syncClose syncs and closes f after a change to it that returned err
// (nil when it succeeded); f is closed whatever happens, and the first
// error is returned.
func syncClose(f *os.File, err error) error {
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// SyncDir makes a created or renamed file's name durable (best effort:
// not every platform can sync a directory).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// maxResync bounds what is read after a bad frame to look for frames that
// still verify.
const maxResync = 256 << 20

// ReadRest reads the file from off to size, at most maxResync bytes.
func ReadRest(f *os.File, off, size int64) ([]byte, error) {
	n := min(size-off, maxResync)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// AllZero reports whether b holds only zero bytes (what a crash can leave
// at the end of a file).
func AllZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Resync finds the first offset in b where a non-empty frame verifies, and
// how many frames verify from there one after another.
func Resync(b []byte, base int64) (int64, int) {
	for i := 0; i+8 <= len(b); i++ {
		if n := chain(b[i:]); n > 0 {
			return base + int64(i), n
		}
	}
	return 0, 0
}

func chain(b []byte) int {
	n := 0
	for len(b) >= 8 {
		size := binary.LittleEndian.Uint32(b)
		if size == 0 || size > MaxFrame || int64(size) > int64(len(b)-8) {
			break
		}
		if CRC(b[8:8+size]) != binary.LittleEndian.Uint32(b[4:]) {
			break
		}
		n++
		b = b[8+size:]
	}
	return n
}

// CopyFile copies from to a new file to, synced.
func CopyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return syncClose(dst, err)
}

// TruncateSynced truncates the file at path to size and syncs it.
func TruncateSynced(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return syncClose(f, f.Truncate(size))
}
