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
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}
