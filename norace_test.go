//go:build !race

package pbl_test

const raceEnabled = false
