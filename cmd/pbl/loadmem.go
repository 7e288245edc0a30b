package main

import (
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/ir"
)

// loadFile is pbl.LoadFile under the command's memory policy.
func loadFile(path string) (*ir.Model, error) {
	return loadFileWith(path, pbl.LoadOptions{})
}

// loadFileWith is pbl.LoadFileWith under the command's memory policy.
func loadFileWith(path string, opt pbl.LoadOptions) (*ir.Model, error) {
	opt.MemoryBudget = limitMemory
	return pbl.LoadFileWith(path, opt)
}

// loadSource is pbl.Load under the command's memory policy.
func loadSource(filename string, src []byte) (*ir.Model, error) {
	return pbl.LoadWith(filename, src, pbl.LoadOptions{MemoryBudget: limitMemory})
}

// The front end's memory: while a model is loaded, the pbl command lowers
// the runtime's memory limit (debug.SetMemoryLimit) to what was in use
// when the load began plus the budget that pbl.LoadOptions.MemoryBudget
// is given, in proportion to the source, so that the
// collector keeps the heap close to what is live, whatever GOGC says,
// rather than letting it grow to twice that (docs/performance.md,
// "Front-end memory").
//
// The limit is soft. A model that needs more than its budget (a range of
// a million states, a million variables in one declaration) is built
// much as before: after each collection, once the live heap passes 80% of
// the budgeted limit L, the limit becomes 2·live − 0.6·L (watch), which
// rises from L then, with the live heap, towards twice it (GOGC=100), so
// that the collector does not run ever more often as the heap nears the
// limit, and a heap near 80% of L is not given much more.
//
// Loads may overlap: the budgets of those in progress add up, and the
// limit in force before the first is restored after the last. A limit set
// meanwhile by someone else is overwritten then.
//
// This is the command's policy, not the library's: package pbl changes no
// process-wide setting (a program that embeds it keeps its own limit), and
// only says how much memory a load holds. The command loads through
// loadFile, loadFileWith and loadSource, which pass limitMemory.
//
// minBudget is the least budget, so that small models, whose memory does
// not matter, are not collected more often than before.
const minBudget = 32 << 20

type loadMemState struct {
	sync.Mutex
	n      int   // loads in progress
	budget int64 // the sum of their budgets
	base   int64 // the memory in use when the first began
	saved  int64 // the limit before the first
	raised int64 // the limit watch set, or 0
	armed  bool  // watch will run after the next collection
}

var loadMem loadMemState

// set sets the memory limit for the loads in progress. m is locked.
func (m *loadMemState) set() {
	debug.SetMemoryLimit(min(m.saved, max(m.base+m.budget, m.raised)))
}

// limitMemory adds a budget of bytes (at least minBudget) to the memory
// limit of the loads in progress, and returns the function that removes
// it. It is the command's pbl.LoadOptions.MemoryBudget.
func limitMemory(bytes int64) (release func()) {
	b := max(bytes, minBudget)
	m := &loadMem
	m.Lock()
	if m.n == 0 {
		m.saved = debug.SetMemoryLimit(-1)
		m.base = memoryInUse()
		m.raised = 0
	}
	m.n++
	m.budget += b
	m.set()
	if !m.armed {
		m.armed = true
		armWatch()
	}
	m.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.Lock()
			m.n--
			m.budget -= b
			if m.n == 0 {
				debug.SetMemoryLimit(m.saved)
			} else {
				m.set()
			}
			m.Unlock()
		})
	}
}

// memoryInUse returns the memory the runtime has from the system and has
// not returned, as the memory limit counts it. (runtime/metrics has the
// exact classes, but its package initialisation costs every pbl run
// 0.09 ms and 95 allocations; runtime.ReadMemStats stops the world for
// microseconds once per load and per collection during one.)
func memoryInUse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys - ms.HeapReleased)
}

// sentinel is an object whose finalizer runs watch after a collection.
type sentinel struct{ _ [32]byte }

func armWatch() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) { watch() })
}

// watch runs after each collection while loads are in progress, and
// raises the limit as the live heap passes 80% of the budget.
func watch() {
	m := &loadMem
	m.Lock()
	defer m.Unlock()
	m.armed = false
	if m.n == 0 {
		return
	}
	// Just after a collection the heap in use is what it found live,
	// and what was allocated since.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live := int64(ms.HeapAlloc)
	m.raised = 2*live - (m.base+m.budget)*3/5
	m.set()
	m.armed = true
	armWatch()
}
