package figure

import (
	"fmt"
	"os"
	"testing"
)

// TestMain checks, before any test draws, that initializing the package
// parsed no font: programs that link figure but draw nothing must not
// pay for it.
func TestMain(m *testing.M) {
	if fontParsed != nil {
		fmt.Fprintln(os.Stderr, "figure: the font was parsed at initialization")
		os.Exit(1)
	}
	os.Exit(m.Run())
}
