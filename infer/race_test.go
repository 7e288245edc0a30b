//go:build race

package infer

// raceEnabled slows the tests' expectations of time: the race detector
// makes the loops about ten times slower.
const raceEnabled = true
