//go:build race

package main

// raceEnabled: under the race detector TestScripts leaves out the
// catalogue of bad input (testdata/script/badinput_*.txtar): hundreds of
// single runs of pbl on error paths, which took most of the package's
// seven minutes under -race on two cores; the plain run, the one
// `go test ./...` makes, runs them (docs/testing.md).
const raceEnabled = true
