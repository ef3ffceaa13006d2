package datafile

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
)

// Stream writes a file whose length is not known when it begins (a
// snapshot): what is written goes through a buffer to the file after a
// reserved head of fixed width, its CRC-32C and length computed as it
// goes, and the head is written last (Finish), once they are known. Where
// the platform can (Linux), the file's pages are handed to the disk every
// WritebackChunk bytes and the chunk before waited for, so that the file
// never holds more than two chunks of dirty pages: an fsync of another
// file on the same disk (the log's, before each answer) does not queue
// behind hundreds of megabytes of it.
type Stream struct {
	f       *os.File
	path    string
	reserve int
	buf     []byte
	crc     uint32
	n       int64 // bytes written after the head, buffered or not
	flushed int64 // file offset up to which the buffer was written
	started int64 // file offset up to which writeback was started
	err     error
}

// WritebackChunk is how many bytes of a Stream are written to the file
// before their writeback is started.
const WritebackChunk = 8 << 20

// streamBuffer is the size of a Stream's buffer.
const streamBuffer = 1 << 20

// CreateStream creates (or truncates) the file at path for a Stream whose
// head is reserve bytes wide.
func CreateStream(path string, reserve int) (*Stream, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	r := int64(reserve)
	return &Stream{f: f, path: path, reserve: reserve, buf: make([]byte, 0, streamBuffer), flushed: r, started: r}, nil
}

// Write appends p after the head; an error stays and is returned by every
// later call.
func (s *Stream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.crc = crc32.Update(s.crc, crcTable, p)
	s.n += int64(len(p))
	n := len(p)
	for len(p) > 0 {
		if len(s.buf) == 0 && len(p) >= cap(s.buf) {
			// Larger than the buffer: straight to the file.
			if err := s.write(p); err != nil {
				return 0, err
			}
			break
		}
		c := copy(s.buf[len(s.buf):cap(s.buf)], p)
		s.buf, p = s.buf[:len(s.buf)+c], p[c:]
		if len(s.buf) == cap(s.buf) {
			if err := s.write(s.buf); err != nil {
				return 0, err
			}
			s.buf = s.buf[:0]
		}
	}
	return n, nil
}

// write writes b to the file at its end and starts the writeback of each
// whole chunk written.
func (s *Stream) write(b []byte) error {
	if _, err := s.f.WriteAt(b, s.flushed); err != nil {
		s.err = err
		return err
	}
	s.flushed += int64(len(b))
	for s.flushed-s.started >= WritebackChunk {
		// Wait for the chunk before this one, start this one's.
		if s.started-int64(s.reserve) >= WritebackChunk {
			writeback(s.f, s.started-WritebackChunk, WritebackChunk, true)
		}
		writeback(s.f, s.started, WritebackChunk, false)
		s.started += WritebackChunk
	}
	return nil
}

// Size is the number of bytes written after the head.
func (s *Stream) Size() int64 { return s.n }

// CRC is the CRC-32C of the bytes written after the head.
func (s *Stream) CRC() uint32 { return s.crc }

// Finish writes what is buffered, then head (exactly as wide as the
// reserve) at the start of the file, syncs and closes it. The file is
// removed when it fails.
func (s *Stream) Finish(head []byte) error {
	if len(head) != s.reserve {
		s.Abort()
		return fmt.Errorf("datafile: a head of %d bytes where %d are reserved", len(head), s.reserve)
	}
	err := s.err
	if err == nil && len(s.buf) > 0 {
		err = s.write(s.buf)
	}
	if err == nil {
		_, err = s.f.WriteAt(head, 0)
	}
	if err == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(s.path)
	}
	return err
}

// Abort closes and removes the file.
func (s *Stream) Abort() {
	if s.err == nil {
		s.err = errAborted
	}
	_ = s.f.Close()
	_ = os.Remove(s.path)
}

var errAborted = errors.New("datafile: stream aborted")
