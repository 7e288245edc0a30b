package learn

// SetMaxPatternCells sets the most cells of patterns EM holds in memory
// (past which it streams) while a test runs; it returns the function that
// restores the default.
func SetMaxPatternCells(n int) (restore func()) {
	old := maxPatternCells
	maxPatternCells = n
	return func() { maxPatternCells = old }
}
