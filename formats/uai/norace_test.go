//go:build !race

package uai_test

const raceEnabled = false
