package infer

import (
	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests should take their heavy cases: the large
// corpus networks (pathfinder, andes, pigs, munin, link …) and the scaling
// tests. Those take minutes under the race detector on two cores (go
// test's 10-minute package timeout was reached), so they run only in the
// plain run, the one `go test ./...` makes; -short and -race take the
// small cases. PBL_TEST_HEAVY=1 takes them in any run; docs/testing.md
// says more.
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled slows the tests' expectations of time: the race detector
// makes the loops about ten times slower. Under it, the corpus tests take
// the subset of networks they take with -short (see heavy): the race
// detector looks for unsynchronised access, which the small networks reach
// by the same code paths (the parallel ones forced with parMinEntries = 0),
// while the large networks' numbers are checked by the run without -race.
const raceEnabled = testrun.Race

// raceFewer returns n, or few under the race detector: a test of many
// random cases takes fewer under it, by the same code paths, since the race
// run looks for unsynchronised access and the plain run checks the numbers
// of all n. (The race detector makes the brute-force references, which are
// test code, ten times slower too.)
func raceFewer(n, few int) int {
	if raceEnabled {
		return few
	}
	return n
}
