package datafile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStream writes files of every kind of length through a Stream (empty,
// less than its buffer, writes larger than the buffer, several writeback
// chunks and a part of one): the file is the head then the bytes written,
// and Size and CRC are those of the bytes after the head.
func TestStream(t *testing.T) {
	t.Parallel()
	pattern := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i/251)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		writes []int
	}{
		{"nothing", nil},
		{"one small write", []int{10}},
		{"many lines", []int{100, 300, 17, 4096, 1, 80_000}},
		{"a write larger than the buffer", []int{5, streamBuffer + 3, 9}},
		{"chunks and a part", []int{2*WritebackChunk + 12345}},
		{"lines over chunks", append(make([]int, 0, 300), repeat(170_003, 130)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "f")
			s, err := CreateStream(path, 16)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			for i, n := range tc.writes {
				p := pattern(n)
				p[0] = byte(i)
				want.Write(p)
				if got, err := s.Write(p); err != nil || got != n {
					t.Fatalf("write %d: %d, %v", i, got, err)
				}
			}
			if s.Size() != int64(want.Len()) || s.CRC() != CRC(want.Bytes()) {
				t.Errorf("size %d crc %08x, want %d %08x", s.Size(), s.CRC(), want.Len(), CRC(want.Bytes()))
			}
			head := []byte("0123456789abcde\n")
			if err := s.Finish(head); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append(head, want.Bytes()...)) {
				t.Errorf("the file (%d bytes) is not the head and the %d bytes written", len(got), want.Len())
			}
		})
	}
}

func repeat(n, times int) []int {
	r := make([]int, times)
	for i := range r {
		r[i] = n
	}
	return r
}

// TestStreamFails: a head of another width than the reserve, and Abort,
// leave no file; a write after Abort fails.
func TestStreamFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	s, err := CreateStream(path, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte("state")); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish([]byte("short\n")); err == nil {
		t.Error("Finish took a head narrower than the reserve")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file is left after a failed Finish: %v", err)
	}
	s, err = CreateStream(path, 8)
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if _, err := s.Write([]byte("x")); err == nil {
		t.Error("a write after Abort succeeded")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file is left after Abort: %v", err)
	}
}
