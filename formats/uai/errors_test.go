package uai

import (
	"regexp"
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
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
	formattest.CheckErrorFile(t, "testdata/errors.uai", func(filename string, src []byte) (*ir.Model, error) {
		return Read(filename, annotation.ReplaceAll(src, nil))
	})
}
