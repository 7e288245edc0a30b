//go:build race

package pbl_test

// raceEnabled: under the race detector the tests take their light cases
// (see heavy).
const raceEnabled = true
