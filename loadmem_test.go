package pbl_test

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/pbl-lang/pbl"
)

// BenchmarkLoadMemory loads a generated 23.7 MB model (the shape of
// BenchmarkFrontEnd's, 69,228 variables) and reports the front end's peak
// live heap while loading, in MB and as a multiple of the source (the
// target is at most 4), and the model's heap once loaded. The collector
// runs at GOGC=5 meanwhile, so that the heap sampled every millisecond is
// what the front end holds, not garbage waiting for a collection.
//
//	go test -run '^$' -bench LoadMemory -benchtime 1x .
func BenchmarkLoadMemory(b *testing.B) {
	src := generatedModel(23_700_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for b.Loop() {
		runtime.GC()
		base := heap()
		done := make(chan uint64)
		stop := make(chan struct{})
		go func() {
			peak := uint64(0)
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					done <- peak
					return
				case <-t.C:
					peak = max(peak, heap())
				}
			}
		}()
		m, err := pbl.Load("big.pbl", src)
		stop <- struct{}{}
		peak := <-done - base
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.ReportMetric(float64(peak)/1e6, "peak-MB")
		b.ReportMetric(float64(peak)/float64(len(src)), "peak/source")
		b.ReportMetric(float64(heap()-base)/1e6, "model-MB")
		runtime.KeepAlive(m)
	}
}
