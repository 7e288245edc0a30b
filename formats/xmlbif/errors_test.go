package xmlbif

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
)

// TestErrors checks testdata/errors.xml in both directions: every error
// reported is expected on its line, and every expectation is met. The
// annotations are XML comments, <!-- ### "regexp" -->.
func TestErrors(t *testing.T) {
	const name = "testdata/errors.xml"
	for _, c := range chunkedfile.Read(name, t) {
		_, err := Read(name, []byte(c.Source))
		if err == nil {
			c.Done()
			continue
		}
		var list ir.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%s:%d: error is %T, not ir.ErrorList: %v", name, c.Line, err, err)
			continue
		}
		for _, e := range list {
			if e.Pos.File != name || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Errorf("%s:%d: error with a bad position: %s", name, c.Line, e)
			}
			c.GotError(e.Pos.Line, e.Msg)
		}
		c.Done()
	}
}
