package kernel

import (
	"sync"
	"testing"
	"time"
)

// mustPanic fails t unless fn panics.
func mustPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	fn()
}

func TestTxMisuse(t *testing.T) {
	t.Parallel()
	var k Kernel
	ended := k.Begin()
	ended.End()
	suspended := k.Begin()
	suspended.Suspend()
	input := k.BeginInput()
	tests := []struct {
		name string
		fn   func()
	}{
		{"a zero Tx", func() { new(Tx).Live() }},
		{"a nil Tx", func() { (*Tx)(nil).End() }},
		{"End twice", func() { ended.End() }},
		{"Ordered after End", func() { ended.Ordered() }},
		{"Live after Suspend", func() { suspended.Live() }},
		{"Resume of a live Tx", func() { input.Resume() }},
		{"Suspend while ordered", func() { input.Suspend() }},
	}
	for _, tt := range tests {
		mustPanic(t, tt.name, tt.fn)
	}
	input.End()
	suspended.Resume()
	suspended.End()
	// The kernel is free again: both locks can be taken.
	k.BeginInput().End()
}

// TestStateLockIsExclusive: a second transaction waits for the first.
func TestStateLockIsExclusive(t *testing.T) {
	t.Parallel()
	var k Kernel
	tx := k.Begin()
	got := make(chan struct{})
	go func() {
		k.Begin().End()
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second transaction began while the first was live")
	case <-time.After(20 * time.Millisecond):
	}
	tx.End()
	<-got
}

// TestInputOrder: inputs take the state in the order they took the input
// order, and a read does not wait for the input order.
func TestInputOrder(t *testing.T) {
	t.Parallel()
	var k Kernel
	first := k.BeginInput() // holds the order and the state
	var mu sync.Mutex
	var order []int
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		close(started)
		tx := k.BeginInput() // waits for the order
		mu.Lock()
		order = append(order, 2)
		mu.Unlock()
		tx.End()
	}()
	<-started
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	order = append(order, 1)
	mu.Unlock()
	first.Ordered() // the next input may take its place; the state stays held
	first.End()
	wg.Wait()
	if len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Fatalf("order %v, want [1 2]", order)
	}
	// BeginOrdered holds the order without the state: a read runs.
	release := k.BeginOrdered()
	k.Begin().End()
	release()
}

// TestSuspendResume: a suspended transaction lets others run, and Resume
// takes its place in the input order again.
func TestSuspendResume(t *testing.T) {
	t.Parallel()
	var k Kernel
	tx := k.BeginInput()
	tx.Ordered()
	tx.Suspend()
	k.BeginInput().End() // another input runs meanwhile
	tx.Resume()
	tx.Live()
	tx.Ordered()
	tx.End()
}
