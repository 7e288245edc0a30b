package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// The garbage collector's policy for one pbl process (docs/performance.md,
// "The garbage collector").
//
// Most runs of pbl are short and keep little live data: reading a network
// of a few hundred variables and answering one query allocates 5–30 MB in
// all, of which 1–5 MB is live at a time. With Go's default (GOGC=100, the
// heap grows to twice the live data, at least 4 MB) such a run collects
// once or twice, and a collection that finds 1 MB live costs as much as the
// rest of the run's work on pigs. So, unless the user set GOGC, the heap may
// grow by
//
//	max(live, min(4·live, gcHeadroom))
//
// before the next collection: GOGC=400 while the live heap is at most
// gcHeadroom/4 (8 MB), falling to GOGC=100 as it reaches gcHeadroom (32 MB)
// and staying there above. A large run thus collects exactly as it would by
// default, and a small one holds at most gcHeadroom·3/4 = 24 MB more than by
// default (at 8 MB live: 40 MB instead of 16 MB). The percentage is set
// again after every collection from the live heap it found. GOMEMLIMIT,
// when set, still applies.
const gcHeadroom = 32 << 20

const (
	gcMaxPercent = 400
	gcMinPercent = 100
)

// gcPercent returns the GC percentage for a live heap of live bytes.
func gcPercent(live uint64) int {
	if live <= gcHeadroom*gcMinPercent/gcMaxPercent {
		return gcMaxPercent
	}
	p := gcHeadroom * 100 / live
	if p < gcMinPercent {
		return gcMinPercent
	}
	return int(p)
}

// startGCPolicy applies the policy above unless the environment sets GOGC.
func startGCPolicy() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcMaxPercent)
	armGCHook()
}

// gcCycles counts the collections the policy has seen (for its test).
var gcCycles atomic.Int64

// armGCHook runs afterGC once the next collection has found a fresh object
// unreachable. The object holds a pointer so that it is not a tiny
// allocation, which could share a block with live data and never be freed.
func armGCHook() {
	sentinel := &struct {
		p *int
		_ [2]uintptr
	}{}
	runtime.AddCleanup(sentinel, func(struct{}) { afterGC() }, struct{}{})
}

// afterGC sets the percentage from the heap in use just after a
// collection (what it found live, and what was allocated since) and waits
// for the next collection. Cleanups run one at a time on one goroutine, so
// the hook needs no lock. (runtime/metrics' "/gc/heap/live:bytes" is the
// exact figure, but initialising that package costs 0.5 M instructions, 1%
// of a query on pigs; ReadMemStats stops the world for microseconds once
// per collection.)
func afterGC() {
	gcCycles.Add(1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetGCPercent(gcPercent(ms.HeapAlloc))
	armGCHook()
}
