// Package testrun tells pbl's tests what kind of run they are in, so that
// every package takes its heavy cases under one rule.
//
// The plain run, the one `go test ./...` makes, takes every case. The
// light runs, -short and -race, leave out each package's heavy cases (the
// package's own heavy function says which: large corpus networks, the
// catalogue of bad input, long EM runs…), whose numbers the plain run
// checks. PBL_TEST_HEAVY=1 takes them in any run. docs/testing.md §6 says
// more.
//
// Only tests import it.
package testrun
