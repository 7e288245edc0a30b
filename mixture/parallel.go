package mixture

import (
	"math/rand/v2"
	"runtime"

	"github.com/pbl-lang/pbl/internal/par"
)

// blockRows is the number of rows in a block: the unit of work of a pass
// over the data and of its partial sums. It is fixed, so that sums do not
// depend on the number of workers.
const blockRows = 512

// numBlocks returns the number of blocks of n rows.
func numBlocks(n int) int { return (n + blockRows - 1) / blockRows }

// blockRange returns the rows [lo, hi) of block b of n rows.
func blockRange(b, n int) (lo, hi int) {
	lo = b * blockRows
	return lo, min(lo+blockRows, n)
}

// workers returns the number of goroutines to use: w if positive, else
// GOMAXPROCS.
func workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// forBlocks calls fn(worker, b) for every block b of n rows, on up to w
// goroutines; worker, in [0, w), identifies the goroutine, so fn may use
// scratch space of its own. fn must write only to the block's own slots.
func forBlocks(w, n int, fn func(worker, b int)) {
	par.Workers(w, numBlocks(n), fn)
}

// newRand returns the random source of restart i of a fit seeded with
// seed.
func newRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}
