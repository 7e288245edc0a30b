package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{1 << 20, 400},
		{8 << 20, 400},    // gcHeadroom/4: the last live heap that gets 400
		{8<<20 + 1, 399},  // then the growth allowed stays at gcHeadroom
		{16 << 20, 200},   //
		{32 << 20, 100},   // gcHeadroom: Go's default from here on
		{32<<20 + 1, 100}, //
		{1 << 40, 100},    //
		{^uint64(0), 100}, // no overflow
	} {
		if got := gcPercent(tc.live); got != tc.want {
			t.Errorf("gcPercent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

// TestGCPolicyRearms checks that the hook sets the percentage after a
// collection and waits for the next one.
func TestGCPolicyRearms(t *testing.T) {
	old := debug.SetGCPercent(7)
	defer debug.SetGCPercent(old)
	start := gcCycles.Load()
	armGCHook()
	deadline := time.Now().Add(20 * time.Second)
	for gcCycles.Load() < start+2 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := gcCycles.Load() - start; n < 2 {
		t.Fatalf("the hook ran %d times after collections, want at least 2", n)
	}
	// The hook replaced the 7 by the policy's percentage.
	if p := debug.SetGCPercent(old); p < gcMinPercent || p > gcMaxPercent {
		t.Errorf("GC percent after the hook = %d, want %d to %d", p, gcMinPercent, gcMaxPercent)
	}
}
