package pbl_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pbl-lang/pbl"
)

// BenchmarkLoadMemory loads a generated 23.7 MB model (the shape of
// BenchmarkFrontEnd's, 69,228 variables) and reports what the front end
// holds at its peak while loading — the largest live heap a garbage
// collection marked (runtime/metrics /gc/heap/live:bytes), in MB and as a
// multiple of the source (the target is at most 4) — the largest heap
// sampled, garbage included (peak-heap-MB), and the model's heap once
// loaded. The collector runs at GOGC=5 meanwhile, so that collections are
// frequent and the live figure follows the load closely; the heap is
// sampled every millisecond.
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
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	for b.Loop() {
		runtime.GC()
		base, baseLive := heap(), live()
		done := make(chan [2]uint64)
		stop := make(chan struct{})
		go func() {
			var peak [2]uint64
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					done <- peak
					return
				case <-t.C:
					peak[0] = max(peak[0], heap())
					peak[1] = max(peak[1], live())
				}
			}
		}()
		m, err := pbl.Load("big.pbl", src)
		stop <- struct{}{}
		peak := <-done
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		held := float64(peak[1] - baseLive)
		b.ReportMetric(held/1e6, "live-MB")
		b.ReportMetric(held/float64(len(src)), "live/source")
		b.ReportMetric(float64(peak[0]-base)/1e6, "peak-heap-MB")
		b.ReportMetric(float64(heap()-base)/1e6, "model-MB")
		runtime.KeepAlive(m)
	}
}
