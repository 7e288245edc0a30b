package bif

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// TestErrors checks testdata/errors.bif in both directions: every error
// reported is expected on its line, and every expectation is met.
func TestErrors(t *testing.T) { formattest.CheckErrorFile(t, "testdata/errors.bif", Read) }
