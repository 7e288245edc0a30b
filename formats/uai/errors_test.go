package uai

import (
	"errors"
	"regexp"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
	"github.com/pbl-lang/pbl/ir"
)

// annotation matches a `###` annotation and the rest of its line.
var annotation = regexp.MustCompile(`###.*`)

// TestErrors checks the errors annotated in testdata/errors.uai with the
// shared internal/chunkedfile harness, in both directions: every error
// reported is expected on its line, and every expectation is met.
//
// UAI has no comments, so the `### "regexp"` annotations are cut from each
// line before the chunk is read. They come last on their lines, so cutting
// them moves no token: line and column numbers are those of the file.
func TestErrors(t *testing.T) {
	const filename = "testdata/errors.uai"
	for _, chunk := range chunkedfile.Read(filename, t) {
		src := annotation.ReplaceAllString(chunk.Source, "")
		m, err := Read(filename, []byte(src))
		if err == nil {
			if m == nil {
				t.Errorf("chunk at line %d: Read returned neither a model nor an error", chunk.Line)
			}
		} else {
			if m != nil {
				t.Errorf("chunk at line %d: Read returned both a model and an error", chunk.Line)
			}
			var list ir.ErrorList
			if !errors.As(err, &list) {
				t.Errorf("chunk at line %d: error is a %T, not an ir.ErrorList: %v", chunk.Line, err, err)
			}
			for i, e := range list {
				if e.Pos.File != filename || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Errorf("error with a bad position %q: %v", e.Pos, e)
				}
				if i > 0 && e.Pos.Before(list[i-1].Pos) {
					t.Errorf("errors not sorted: %v before %v", list[i-1], e)
				}
				chunk.GotError(e.Pos.Line, e.Msg)
			}
		}
		chunk.Done()
	}
}
