//go:build race

package mixture

// raceEnabled: under the race detector the tests take their light cases
// (see heavy).
const raceEnabled = true
