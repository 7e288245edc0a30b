package learn

// SetForceNetworkEM routes every mixture through network EM while a test
// compares the two paths; it returns the function that restores the
// default.
func SetForceNetworkEM() (restore func()) {
	forceNetworkEM = true
	return func() { forceNetworkEM = false }
}
