package formattest

import (
	"errors"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
)

// CheckErrorFile checks read against the annotated error file filename
// (see internal/chunkedfile). Each chunk, read as the file filename, must
// give a model or an error but not both, and its errors must be the ones
// annotated, positioned in filename and sorted.
func CheckErrorFile(t *testing.T, filename string, read func(filename string, src []byte) (*ir.Model, error)) {
	t.Helper()
	chunkedfile.Check(t, filename, func(c *chunkedfile.Chunk) error {
		m, err := read(filename, []byte(c.Source))
		if err == nil && m == nil {
			t.Errorf("chunk at line %d: Read returned neither a model nor an error", c.Line)
		}
		if err != nil && m != nil {
			t.Errorf("chunk at line %d: Read returned both a model and an error", c.Line)
		}
		return err
	})
}

// CheckErrors fails t unless err is nil or a non-empty ir.ErrorList of
// errors positioned in file, on a line and a column.
func CheckErrors(t testing.TB, file string, err error) {
	t.Helper()
	checkErrors(t, file, err, true)
}

// CheckErrorLines is CheckErrors for a reader some of whose errors have a
// line but no column.
func CheckErrorLines(t testing.TB, file string, err error) {
	t.Helper()
	checkErrors(t, file, err, false)
}

func checkErrors(t testing.TB, file string, err error, col bool) {
	t.Helper()
	if err == nil {
		return
	}
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ir.ErrorList: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatal("empty error list")
	}
	for _, e := range list {
		if e == nil {
			t.Fatal("nil *ir.Error in the list")
		}
		if e.Pos.File != file || e.Pos.Line < 1 || col && e.Pos.Col < 1 {
			t.Fatalf("error with a bad position: %q", e)
		}
	}
}
