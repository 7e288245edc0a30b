package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(0), ..., fn(n-1) on up to GOMAXPROCS goroutines, handing
// out indices in increasing order, and returns when every call has
// returned. The calls must be independent of each other.
func For(n int, fn func(i int)) {
	Workers(runtime.GOMAXPROCS(0), n, func(_, i int) { fn(i) })
}

// Workers calls fn(worker, 0), ..., fn(worker, n-1) on up to w
// goroutines, handing out indices in increasing order, and returns when
// every call has returned. worker, in [0, w), identifies the goroutine
// making the call, so that fn may keep scratch space per worker; with w ≤
// 1 every call is made in order on the caller's goroutine, as worker 0.
// The calls must be independent of each other.
func Workers(w, n int, fn func(worker, i int)) {
	w = min(w, n)
	if w <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(g, i)
			}
		}()
	}
	wg.Wait()
}
