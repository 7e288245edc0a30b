package infer

import (
	"os"
	"testing"
)

// heavy reports whether the tests should take their heavy cases: the large
// corpus networks (pathfinder, andes, pigs, munin, link …) and the scaling
// tests. Those take minutes under the race detector on two cores (go
// test's 10-minute package timeout was reached), so they run only in the
// plain run, the one `go test ./...` makes; -short and -race take the
// small cases. PBL_TEST_HEAVY=1 takes them in any run; docs/testing.md
// says more.
func heavy() bool {
	if os.Getenv("PBL_TEST_HEAVY") == "1" {
		return true
	}
	return !testing.Short() && !raceEnabled
}
