//go:build js

package learn

// In the WebAssembly page (GOOS=js), EM does not fill in missing real
// parents of linear Gaussian densities (emmissing.go, which the pbl command
// has): the page stays under issue 30's 12 MB. A row that gives a child
// but not one of its real parents is refused there, at its line
// (linLogDensities).

// realComp, jointRow and compJoint are emmissing.go's; the page has none.
type (
	realComp  struct{}
	jointRow  struct{ owner int }
	compJoint struct{}
)

func (e *emRun) setComps() {}

func (e *emRun) markJoint(w *realWork, x []float64) []*realComp { return nil }

func (e *emRun) jointLik(w *realWork, k, i int, x []float64, comps []*realComp) (float64, error) {
	return 0, nil
}

func (e *emRun) addJoint(b int, jr *jointRow, post []float64, buf []float64) {}
