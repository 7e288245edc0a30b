//go:build race

package learn_test

// raceEnabled shrinks the EM tests' data under the race detector (see
// heavy), which makes EM's loops ten to twenty times slower: on two cores
// TestEMNeverDecreases alone took over two minutes.
const raceEnabled = true
