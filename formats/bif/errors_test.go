package bif

import (
	"testing"

	"github.com/pbl-lang/pbl/internal/chunkedfile"
)

// TestErrors checks testdata/errors.bif in both directions: every error
// reported is expected on its line, and every expectation is met.
func TestErrors(t *testing.T) {
	const name = "testdata/errors.bif"
	chunkedfile.Check(t, name, func(c *chunkedfile.Chunk) error {
		_, err := Read(name, []byte(c.Source))
		return err
	})
}
