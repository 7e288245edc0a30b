package xmlbif

import (
	"testing"

	"github.com/pbl-lang/pbl/formats/internal/formattest"
)

// TestErrors checks testdata/errors.xml in both directions: every error
// reported is expected on its line, and every expectation is met. The
// annotations are XML comments, <!-- ### "regexp" -->.
func TestErrors(t *testing.T) { formattest.CheckErrorFile(t, "testdata/errors.xml", Read) }
