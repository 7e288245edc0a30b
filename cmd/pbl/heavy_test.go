package main

import (
	"os"
	"testing"
)

// heavy reports whether the tests take their heavy cases, as infer's and
// learn's heavy do: the plain run (the one `go test ./...` makes) takes
// them all; -short and -race leave out the catalogue of bad input
// (testdata/script/badinput_*.txtar), the repeats of `pbl test` over every
// example (TestExamples runs it whole in every run) and the start-up test
// that builds a plain pbl binary. PBL_TEST_HEAVY=1 takes them in any run;
// docs/testing.md says more. Scripts see it as the condition [heavy].
func heavy() bool {
	if os.Getenv("PBL_TEST_HEAVY") == "1" {
		return true
	}
	return !testing.Short() && !raceEnabled
}
