// Package dbntest makes random time-indexed models for tests, with their
// numbers, so that a test computes their joint distribution from the
// numbers alone (enumeration), independently of pbl: the root's and
// package dbn's brute-force tests share it.
package dbntest
