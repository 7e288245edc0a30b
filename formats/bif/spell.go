package bif

import (
	"fmt"

	"github.com/pbl-lang/pbl/internal/spell"
)

// hint returns ` (did you mean "x"?)` for the candidate nearest to name,
// or "" if none is close enough.
func hint(name string, candidates []string) string {
	if s := spell.Nearest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
