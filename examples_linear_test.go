package pbl_test

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/pbl-lang/pbl"
)

// TestLineFitNetwork: examples/linefit.pbl learns, as a linear Gaussian
// density, the line that line_fit.pbl's continuous space L finds by
// package hypothesis's least squares (ML(L | D)) on the same 1,000
// points, to 1e-9; its standard deviation is the root mean squared
// residual, which ln P(D | h) of that line under sd 1 gives:
// −ln P = n/2 ln 2π + RSS/2.
func TestLineFitNetwork(t *testing.T) {
	net, err := pbl.LoadFile("examples/linefit.pbl")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := net.Lookup("d")
	g := net.Gaussian(d.ID)
	if g == nil || len(g.Real) != 1 {
		t.Fatalf("d's density: %+v", g)
	}
	space, err := pbl.LoadFile("examples/line_fit.pbl")
	if err != nil {
		t.Fatal(err)
	}
	a, err := pbl.Ask(space, "ML(L | D)")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	a.Text(&text, space)
	m := regexp.MustCompile(`w0 = (\S+), w1 = (\S+)\n\s+ln P\(D\|h\) = (\S+)`).FindStringSubmatch(text.String())
	if m == nil {
		t.Fatalf("ML(L | D) answered\n%s", text.String())
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	w0, w1, logLik := num(m[1]), num(m[2]), num(m[3])
	if !(math.Abs(g.Mean[0]-w0) <= 1e-9) || !(math.Abs(g.Coef[0]-w1) <= 1e-9) {
		t.Errorf("linefit.pbl learned d = %v + %v x; ML(L | D) is %v + %v x", g.Mean[0], g.Coef[0], w0, w1)
	}
	const n = 1000
	rss := 2 * (-logLik - n/2*math.Log(2*math.Pi))
	// ln P(D|h) is printed to 10 digits: the sd agrees to about that.
	if sd := math.Sqrt(rss / n); !(math.Abs(g.SD[0]-sd) <= 1e-6*sd) {
		t.Errorf("linefit.pbl learned sd %v; the root mean squared residual of ML(L | D) is %v", g.SD[0], sd)
	}
}
