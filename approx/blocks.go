package approx

import (
	"math/rand/v2"
	"sync"
	"time"
)

// This file is how the samplers stay reproducible on any number of cores:
// the samples are drawn in blocks of a fixed size, block k from its own
// random stream PCG(Seed, tag|k), the blocks of a wave drawn in parallel
// and their results merged in block order. The numbers therefore depend on
// the seed and the number of blocks, never on Settings.Workers or on which
// goroutine drew what.

// smpBlock is the number of samples of a block.
const smpBlock = 256

// Stream tags: the high bits of a stream's number, so that the phases of
// an algorithm (and the algorithms) never share a stream.
const (
	smpTagLW     = 1 << 56
	smpTagIS     = 2 << 56 // | stage<<40 | block
	smpTagGibbs  = 3 << 56 // | chain
	smpStageBits = 40
)

// smpRNG returns the random stream numbered stream of the seed.
func smpRNG(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// smpStopper reports whether Settings' deadline has passed or its Cancel
// channel is closed.
type smpStopper struct {
	deadline time.Time
	cancel   <-chan struct{}
}

func (s smpStopper) stopped() bool {
	if s.cancel != nil {
		select {
		case <-s.cancel:
			return true
		default:
		}
	}
	return !s.deadline.IsZero() && !time.Now().Before(s.deadline)
}

// smpWorkers returns the number of goroutines Settings allow (at least 1).
func smpWorkers(s Settings) int { return max(1, s.Workers) }

// smpRunBlocks draws the blocks first, first+1, … (up to first+count-1;
// count < 0 for no end) in waves of workers blocks: draw(k, j) draws block
// k into scratch j (one per worker) and reports whether it completed (false
// when stopped midway); merge(j) takes scratch j's result, in block order.
// It returns how many blocks were merged and whether it stopped early.
func smpRunBlocks(workers, first, count int, st smpStopper, draw func(k, j int) bool, merge func(j int)) (int, bool) {
	done := 0
	ok := make([]bool, workers)
	for count < 0 || done < count {
		if st.stopped() {
			return done, true
		}
		w := workers
		if count >= 0 {
			w = min(w, count-done)
		}
		if w == 1 {
			ok[0] = draw(first+done, 0)
		} else {
			var wg sync.WaitGroup
			for j := range w {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok[j] = draw(first+done+j, j)
				}()
			}
			wg.Wait()
		}
		for j := range w {
			if !ok[j] {
				return done, true
			}
			merge(j)
			done++
		}
	}
	return done, false
}
