package factor

// Kernel is what one computation's loops share: the channel that cancels
// it, polled between blocks of work, and whether a product of nonzero
// entries fell below the normal range of float64 (Lost), which makes the
// fast, scaled answer inexact and calls for the exact one ([Exact]). A nil
// *Kernel is never canceled and records nothing.
type Kernel struct {
	Cancel   <-chan struct{} // closed to cancel the computation; nil for never
	canceled bool
	Lost     bool // a product of nonzero entries fell below the normal range
	Coarse   bool // the last table an engine returned has entries flushed to 0 below its largest (exact runs, enumeration)
}

// NewKernel returns the kernel of a computation canceled by cancel (nil
// for never).
func NewKernel(cancel <-chan struct{}) *Kernel { return &Kernel{Cancel: cancel} }

// Fork returns a kernel for a computation run beside k's: the same
// cancellation, its own record of lost products.
func (k *Kernel) Fork() *Kernel {
	if k == nil {
		return &Kernel{}
	}
	return &Kernel{Cancel: k.Cancel, canceled: k.canceled}
}

// Poll reports whether the computation has been canceled. Once it has
// seen the cancellation, it reports it without looking at the channel.
func (k *Kernel) Poll() bool {
	if k == nil {
		return false
	}
	if k.canceled {
		return true
	}
	if k.Cancel == nil {
		return false
	}
	select {
	case <-k.Cancel:
		k.canceled = true
		return true
	default:
		return false
	}
}

// CancelChan returns k's cancellation channel (nil for a nil kernel).
func (k *Kernel) CancelChan() <-chan struct{} {
	if k == nil {
		return nil
	}
	return k.Cancel
}

// Stop is Poll for hot loops on a non-nil kernel: without a cancellation
// channel it is one inlined comparison.
func (k *Kernel) Stop() bool { return k.Cancel != nil && k.Poll() }

// CanceledNow is Poll for a kernel whose forks may have seen the
// cancellation first.
func (k *Kernel) CanceledNow() bool { return k.Poll() }

// Flush records that a product of nonzero entries fell below the normal
// range.
func (k *Kernel) Flush() {
	if k != nil {
		k.Lost = true
	}
}

// PollEvery is the number of entries a kernel computes between two polls
// of its cancellation: a few milliseconds of work.
const PollEvery = 1 << 16
