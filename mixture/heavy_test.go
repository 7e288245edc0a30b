package mixture

import (
	"github.com/pbl-lang/pbl/internal/testrun"
)

// heavy reports whether the tests take their heavy cases, as infer's and
// learn's heavy do: the plain run (the one `go test ./...` makes) fits
// every data set of testdata/sklearn.json; -short and -race leave out the
// fresh* sets of TestSklearn (fresh.py's regression cases, with k up to
// 10) and the two largest goldens of TestKMeansGolden (20000×16 with k=32,
// 4000×16 with k=40), most of the package's time under the race
// detector. Their numbers are the plain run's to check; the light run
// keeps aniso4d, blobs2d and overlap3d with every covariance type and
// k-means, and five goldens with every kernel and 1 to 3 workers, by the
// same code paths. PBL_TEST_HEAVY=1 takes them in any run;
// docs/testing.md says more.
func heavy() bool {
	return testrun.Heavy()
}

// raceEnabled: under the race detector the tests take their light cases
// (see heavy).
const raceEnabled = testrun.Race
