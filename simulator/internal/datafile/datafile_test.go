package datafile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFrames: frames read back in order, a clean end is io.EOF, and every
// kind of damage (cut in the header, cut in the payload, a flipped bit, a
// length over MaxFrame) is ErrTorn.
func TestFrames(t *testing.T) {
	t.Parallel()
	one, two := Frame([]byte(`{"a":1}`)), Frame([]byte("second"))
	if got := binary.LittleEndian.Uint32(one); got != 7 {
		t.Fatalf("length field %d", got)
	}
	r := bufio.NewReader(bytes.NewReader(append(append([]byte{}, one...), two...)))
	for _, want := range []string{`{"a":1}`, "second"} {
		p, err := ReadFrame(r)
		if err != nil || string(p) != want {
			t.Fatalf("ReadFrame = %q, %v; want %q", p, err, want)
		}
	}
	if _, err := ReadFrame(r); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	flipped := append([]byte{}, one...)
	flipped[10] ^= 1
	long := append([]byte{}, one...)
	binary.LittleEndian.PutUint32(long, MaxFrame+1)
	for name, b := range map[string][]byte{
		"cut in the header": one[:5], "cut in the payload": one[:len(one)-1], "flipped bit": flipped, "too long": long,
	} {
		if _, err := ReadFrame(bufio.NewReader(bytes.NewReader(b))); !errors.Is(err, ErrTorn) {
			t.Errorf("%s: %v, want ErrTorn", name, err)
		}
	}
}

// TestResync finds the first offset where frames verify again, and counts
// them; zeros and garbage alone hold none.
func TestResync(t *testing.T) {
	t.Parallel()
	frames := append(Frame([]byte("x")), Frame([]byte("yz"))...)
	b := append(bytes.Repeat([]byte{0xab}, 13), frames...)
	if at, n := Resync(b, 100); at != 113 || n != 2 {
		t.Errorf("Resync = %d, %d; want 113, 2", at, n)
	}
	if at, n := Resync(bytes.Repeat([]byte{0xab}, 40), 0); n != 0 || at != 0 {
		t.Errorf("garbage: %d, %d", at, n)
	}
	if !AllZero(make([]byte, 9)) || AllZero([]byte{0, 1}) || !AllZero(nil) {
		t.Error("AllZero")
	}
}

// TestFiles: WriteSynced, CopyFile (refusing an existing target),
// TruncateSynced and ReadRest.
func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := WriteSynced(a, []byte("hello world")); err != nil {
		t.Fatal(err)
	}
	SyncDir(dir)
	if err := CopyFile(a, b); err != nil {
		t.Fatal(err)
	}
	if err := CopyFile(a, b); !errors.Is(err, os.ErrExist) {
		t.Errorf("copy onto an existing file: %v", err)
	}
	if err := TruncateSynced(b, 5); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b); string(got) != "hello" {
		t.Errorf("truncated file %q", got)
	}
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rest, err := ReadRest(f, 6, 11); err != nil || string(rest) != "world" {
		t.Errorf("ReadRest = %q, %v", rest, err)
	}
}

// TestLock: a directory's lock is held once; a second taker is refused
// with a message naming one process per data directory, and it is free
// again after Close.
func TestLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	l, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path); err == nil || !strings.Contains(err.Error(), "in use by another simulator") {
		t.Errorf("second Lock: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock after Close: %v", err)
	}
	l2.Close()
}
