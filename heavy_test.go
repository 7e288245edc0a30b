package pbl_test

import (
	"path/filepath"

	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests take their heavy cases, as infer's and
// learn's heavy do: the plain run (the one `go test ./...` makes) takes
// them all; -short and -race leave out TestLargeCorpusAgainstOracle's
// three largest networks (barley, diabetes, munin: 50 of its 70 s under
// the race detector) and latent_class.pbl in TestLoadExamples,
// TestExamplesEnginesAgree, TestLoadKeepsNoSource and
// TestExpectPrintsNothing (its learn statement's EM, ten random starts,
// took half a minute per load under the race detector; cmd/pbl's
// TestExamples loads it in every run). PBL_TEST_HEAVY=1 takes them in any
// run; docs/testing.md says more.
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled: under the race detector the tests take their light cases
// (see heavy).
const raceEnabled = testrun.Race

// heavyExample reports whether the light runs leave out the example at
// path (see heavy).
func heavyExample(path string) bool {
	return !heavy() && filepath.Base(path) == "latent_class.pbl"
}
