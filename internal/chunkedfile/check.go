package chunkedfile

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// Check runs the phase under test on each chunk of the annotated file
// filename and checks its errors in both directions. run returns the
// phase's error for c (it may also check more, failing t itself). The
// error must be nil or an ir.ErrorList whose errors are positioned in
// filename, on a line and a column, and sorted; each error goes to
// GotError, and then Done checks that every expectation was met.
func Check(t testing.TB, filename string, run func(c *Chunk) error) {
	t.Helper()
	chunks := Read(filename, t)
	for i := range chunks {
		c := &chunks[i]
		if err := run(c); err != nil {
			c.gotErrors(filename, err)
		}
		c.Done()
	}
}

// gotErrors checks err, an error of the chunk's phase, and reports each of
// its errors with GotError.
func (c *Chunk) gotErrors(filename string, err error) {
	c.t.Helper()
	var list ir.ErrorList
	if !errors.As(err, &list) {
		c.t.Errorf("%s:%d: error is a %T, not an ir.ErrorList: %v", filename, c.Line, err, err)
		return
	}
	for i, e := range list {
		if e.Pos.File != filename || e.Pos.Line < 1 || e.Pos.Col < 1 {
			c.t.Errorf("%s:%d: error with a bad position %q: %v", filename, c.Line, e.Pos, e)
		}
		if i > 0 && e.Pos.Before(list[i-1].Pos) {
			c.t.Errorf("%s:%d: errors not sorted: %v before %v", filename, c.Line, list[i-1], e)
		}
		c.GotError(e.Pos.Line, e.Msg)
	}
}
