package uai_test

import (
	"slices"

	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests take their heavy cases, as infer's and
// learn's heavy do: the plain run (the one `go test ./...` makes) answers
// PR and MAR on every corpus instance; -short and -race leave out
// heavyInstances, whose answers took three of the package's four minutes
// under the race detector (their numbers are the plain run's to check; the
// race detector's concern, the parallel junction tree, is infer's tests').
// PBL_TEST_HEAVY=1 takes them in any run; docs/testing.md says more.
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled relaxes the tests' bounds on time: the race detector
// makes the readers several times slower.
const raceEnabled = testrun.Race

// heavyInstances are the instances whose answers take seconds each
// without the race detector (DBN_11's MAR 27 s, ObjectDetection_34's PR
// 21 s on a loaded machine) and minutes with it.
var heavyInstances = []string{"DBN_11", "ObjectDetection_34"}

// answered returns the instances whose PR and MAR the run checks: all of
// them, or in the light runs (see heavy) all but heavyInstances.
func answered() []string {
	if heavy() {
		return instances
	}
	var out []string
	for _, name := range instances {
		if !slices.Contains(heavyInstances, name) {
			out = append(out, name)
		}
	}
	return out
}
