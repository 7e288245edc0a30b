package xmlbif

import (
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
)

// TestErrors checks testdata/errors.xml in both directions: every error
// reported is expected on its line, and every expectation is met. The
// annotations are XML comments, <!-- ### "regexp" -->.
func TestErrors(t *testing.T) {
	const name = "testdata/errors.xml"
	chunkedfile.Check(t, name, func(c *chunkedfile.Chunk) error {
		_, err := Read(name, []byte(c.Source))
		return err
	})
}
