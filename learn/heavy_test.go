package learn_test

import (
	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests take their full-size cases. Under -short
// and the race detector they take smaller data sets by the same code paths
// (the workers still share the model, which is what the race detector
// checks); the plain run, the one `go test ./...` makes, takes them all.
// PBL_TEST_HEAVY=1 takes them in any run; docs/testing.md says more.
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled shrinks the EM tests' data under the race detector (see
// heavy), which makes EM's loops ten to twenty times slower: on two cores
// TestEMNeverDecreases alone took over two minutes.
const raceEnabled = testrun.Race

// rows returns n, or n/div for the light run (see heavy).
func rows(n, div int) int {
	if heavy() {
		return n
	}
	return max(1, n/div)
}

// raceFewer returns n, or few under the race detector: a test of many
// cases (networks, restarts, reference runs) takes fewer under it by the
// same code paths; the race run looks for unsynchronised access, the plain
// run checks the numbers of all n.
func raceFewer(n, few int) int {
	if raceEnabled {
		return few
	}
	return n
}
