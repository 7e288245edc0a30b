package testrun

import (
	"os"
	"testing"
)

// Heavy reports whether the running tests take their heavy cases: in the
// plain run, or in any run with PBL_TEST_HEAVY=1; not with -short or under
// the race detector. It must be called from a test (it reads
// testing.Short).
func Heavy() bool {
	if os.Getenv("PBL_TEST_HEAVY") == "1" {
		return true
	}
	return !testing.Short() && !Race
}
