//go:build race

package infer

// raceEnabled slows the tests' expectations of time: the race detector
// makes the loops about ten times slower. Under it, the corpus tests take
// the subset of networks they take with -short (see heavy): the race
// detector looks for unsynchronised access, which the small networks reach
// by the same code paths (the parallel ones forced with parMinEntries = 0),
// while the large networks' numbers are checked by the run without -race.
const raceEnabled = true
