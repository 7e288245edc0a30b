package main

import (
	"os"
	"os/signal"

	"github.com/pbl-lang/pbl/infer"
)

// interruptible makes the first Ctrl-C (SIGINT) during the answers of a
// command close opt.Cancel: an approximate engine then returns its best
// answer so far (printed labelled as stopped), an exact one the error
// "inference canceled". A second Ctrl-C ends the process as usual (the
// handler is removed at the first). stop removes the handler.
func interruptible(opt *infer.Options) (stop func()) {
	if opt.Cancel != nil {
		return func() {}
	}
	cancel := make(chan struct{})
	opt.Cancel = cancel
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			signal.Stop(ch)
			close(cancel)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
