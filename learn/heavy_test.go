package learn_test

import (
	"os"
	"testing"
)

// heavy reports whether the tests take their full-size cases. Under -short
// and the race detector they take smaller data sets by the same code paths
// (the workers still share the model, which is what the race detector
// checks); the plain run, the one `go test ./...` makes, takes them all.
// PBL_TEST_HEAVY=1 takes them in any run; docs/testing.md says more.
func heavy() bool {
	if os.Getenv("PBL_TEST_HEAVY") == "1" {
		return true
	}
	return !testing.Short() && !raceEnabled
}

// rows returns n, or n/div for the light run (see heavy).
func rows(n, div int) int {
	if heavy() {
		return n
	}
	return max(1, n/div)
}
