//go:build !race

package testrun

// Race reports whether the program was built with the race detector
// (-race), which makes pbl's loops ten to twenty times slower.
const Race = false
