package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLimitMemory: a load's budget lowers the memory limit to what is in
// use plus the budget; overlapping budgets add up; a live heap past 80%
// of the budgeted limit raises it (watch); and the limit in force before
// is restored after the last load, whatever happened meanwhile.
func TestLimitMemory(t *testing.T) {
	const before = 6 << 30
	old := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(old)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	release1 := limitMemory(3 << 20) // under minBudget
	base := loadMem.base
	if got, want := limit(), base+minBudget; got != want {
		t.Fatalf("one load: limit %d, want %d", got, want)
	}
	release2 := limitMemory(48 << 20)
	if got, want := limit(), base+minBudget+48<<20; got != want {
		t.Fatalf("two loads: limit %d, want %d", got, want)
	}
	release2()
	release2() // once only
	if got, want := limit(), base+minBudget; got != want {
		t.Fatalf("after one of two loads: limit %d, want %d", got, want)
	}

	// This test runs alone (none of the package's tests is parallel), so
	// no other load changes the limit meanwhile. Hold more than 80% of
	// the budgeted limit live: the next collection raises the limit to
	// 2·live − 0.6·L.
	budgeted := base + minBudget
	hold := make([]byte, budgeted) // more than the limit: certainly past 80%
	for i := range hold {
		hold[i] = 1
	}
	raised := false
	for range 50 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the collection
		if limit() > budgeted {
			raised = true
			break
		}
	}
	runtime.KeepAlive(hold)
	if !raised {
		t.Errorf("live heap past the budget: limit %d, not raised above %d", limit(), budgeted)
	}
	hold = nil

	release1()
	if got := limit(); got != before {
		t.Errorf("after the loads: limit %d, want %d", got, before)
	}
	// A collection after the loads leaves the limit alone.
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := limit(); got != before {
		t.Errorf("after the loads and a collection: limit %d, want %d", got, before)
	}
}
