package par

import (
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		seen := make([]atomic.Int32, n)
		For(n, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("n=%d: fn(%d) called %d times", n, i, got)
			}
		}
	}
}

// TestWorkers: every index once, and each worker number below w.
func TestWorkers(t *testing.T) {
	for _, w := range []int{0, 1, 2, 5} {
		for _, n := range []int{0, 1, 3, 1000} {
			seen := make([]atomic.Int32, n)
			var bad atomic.Int32
			Workers(w, n, func(worker, i int) {
				if worker < 0 || worker >= max(w, 1) {
					bad.Add(1)
				}
				seen[i].Add(1)
			})
			if bad.Load() != 0 {
				t.Fatalf("w=%d n=%d: a worker number out of range", w, n)
			}
			for i := range seen {
				if got := seen[i].Load(); got != 1 {
					t.Fatalf("w=%d n=%d: fn(%d) called %d times", w, n, i, got)
				}
			}
		}
	}
}
