package uai

import (
	"regexp"
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
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
	chunkedfile.Check(t, filename, func(chunk *chunkedfile.Chunk) error {
		src := annotation.ReplaceAllString(chunk.Source, "")
		m, err := Read(filename, []byte(src))
		if err == nil && m == nil {
			t.Errorf("chunk at line %d: Read returned neither a model nor an error", chunk.Line)
		}
		if err != nil && m != nil {
			t.Errorf("chunk at line %d: Read returned both a model and an error", chunk.Line)
		}
		return err
	})
}
