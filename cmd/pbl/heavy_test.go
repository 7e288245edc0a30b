package main

import (
	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests take their heavy cases, as infer's and
// learn's heavy do: the plain run (the one `go test ./...` makes) takes
// them all; -short and -race leave out the catalogue of bad input
// (testdata/script/badinput_*.txtar), the repeats of `pbl test` over every
// example (TestExamples runs it whole in every run) and the start-up test
// that builds a plain pbl binary. PBL_TEST_HEAVY=1 takes them in any run;
// docs/testing.md says more. Scripts see it as the condition [heavy].
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled: under the race detector TestScripts leaves out the
// catalogue of bad input (testdata/script/badinput_*.txtar): hundreds of
// single runs of pbl on error paths, which took most of the package's
// seven minutes under -race on two cores; the plain run, the one
// `go test ./...` makes, runs them (docs/testing.md).
const raceEnabled = testrun.Race
