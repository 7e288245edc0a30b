//go:build race

package uai_test

// raceEnabled relaxes the tests' bounds on time: the race detector
// makes the readers several times slower.
const raceEnabled = true
