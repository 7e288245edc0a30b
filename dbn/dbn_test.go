package dbn_test

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/dbn"
	"github.com/pbl-lang/pbl/ir"
)

const umbrella = `var Rain[t]: bool
var Umbrella[t]: bool
Rain[t-1] -> Rain[t]
Rain[t] -> Umbrella[t]
P(Rain[0]) = 0.5
P(Rain[t] | Rain[t-1]) = { true: 0.7  false: 0.3 }
P(Umbrella[t] | Rain[t]) = { true: 0.9  false: 0.2 }
`

// certain is a chain that never changes state, and a sensor that
// reports it exactly.
const certain = `var X[t]: bool
var Y[t]: bool
var S: bool
X[t-1] -> X[t]
X[t] -> Y[t]
S -> Y[t]
P(S) = 0.5
P(X[0]) = 0.5
P(X[t] | X[t-1]) = { true: 1  false: 0 }
P(Y[t] | X[t], S) = { true, true: 1  true, false: 1  false, true: 0  false, false: 0 }
`

func compile(t *testing.T, src string) *dbn.Net {
	t.Helper()
	m, err := pbl.Load("x.pbl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := dbn.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUmbrella checks Russell and Norvig's numbers (§15.2): 0.818 and
// 0.883 filtered, 0.883 smoothed on day 1.
func TestUmbrella(t *testing.T) {
	n := compile(t, umbrella)
	// Day 0 is the prior's step here: the book's days 1 and 2 are steps 1 and 2.
	seq := dbn.Seq{Steps: [][]float64{{-1, -1}, {-1, 0}, {-1, 0}}}
	var filt []float64
	if err := n.Filter(seq, []string{"Rain"}, func(t int, p [][]float64) error {
		filt = append(filt, p[0][0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sm := map[int]float64{}
	if err := n.Smooth(seq, []string{"Rain"}, func(t int, p [][]float64) error {
		sm[t] = p[0][0]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got, want float64
	}{{filt[1], 0.818}, {filt[2], 0.883}, {sm[1], 0.883}} {
		if !(math.Abs(c.got-c.want) <= 0.0005) {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
}

// TestImpossible checks that evidence of probability zero is an
// *ImpossibleError naming the first step that cannot be explained, on
// the general engine (a static parent) and on package hmm's.
func TestImpossible(t *testing.T) {
	n := compile(t, certain)
	// X stays put; Y = X exactly: Y true at 0 and 1, false at 2.
	seq := dbn.Seq{Steps: [][]float64{{-1, 0}, {-1, 0}, {-1, 1}}}
	for name, call := range map[string]func() error{
		"loglik":  func() error { _, err := n.LogLik(seq); return err },
		"filter":  func() error { return n.Filter(seq, []string{"X"}, func(int, [][]float64) error { return nil }) },
		"smooth":  func() error { return n.Smooth(seq, []string{"X"}, func(int, [][]float64) error { return nil }) },
		"viterbi": func() error { _, _, err := n.Viterbi(seq, []string{"X"}); return err },
		"predict": func() error { _, err := n.Predict(seq, []string{"X"}, 1); return err },
	} {
		err := call()
		var ie *dbn.ImpossibleError
		if !errors.Is(err, dbn.ErrImpossible) || !errors.As(err, &ie) || ie.Step != 2 {
			t.Errorf("%s: got %v, want impossible at step 2", name, err)
		}
	}
	h := compile(t, `var X[t]: bool
var Y[t]: bool
X[t-1] -> X[t]
X[t] -> Y[t]
P(X[0]) = 1
P(X[t] | X[t-1]) = { true: 1  false: 0 }
P(Y[t] | X[t]) = { true: 1  false: 0 }
`)
	if !h.Fast() {
		t.Fatal("not package hmm's")
	}
	_, err := h.LogLik(dbn.Seq{Steps: [][]float64{{-1, 0}, {-1, 1}}})
	var ie *dbn.ImpossibleError
	if !errors.As(err, &ie) || ie.Step != 1 {
		t.Errorf("hmm: got %v, want impossible at step 1", err)
	}
}

// TestErrors checks the kinds of the errors of bad input.
func TestErrors(t *testing.T) {
	n := compile(t, umbrella)
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"wide step", n.Filter(dbn.Seq{Steps: [][]float64{{0, 0, 0}}}, nil, nil), dbn.ErrSequence},
		{"state out of range", n.Filter(dbn.Seq{Steps: [][]float64{{0, 2}}}, nil, nil), dbn.ErrSequence},
		{"fraction", n.Filter(dbn.Seq{Steps: [][]float64{{0.5, 0}}}, nil, nil), dbn.ErrSequence},
		{"unknown target", n.Filter(dbn.Seq{}, []string{"Rian"}, nil), dbn.ErrTarget},
		{"predict 0", func() error { _, err := n.Predict(dbn.Seq{}, nil, 0); return err }(), dbn.ErrTarget},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	m, err := pbl.Load("x.pbl", []byte("var A: bool\nP(A) = 0.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dbn.Compile(m); !errors.Is(err, dbn.ErrNotTemporal) {
		t.Errorf("static model: got %v", err)
	}
	m, err = pbl.Load("x.pbl", []byte(`var G: real
var X[t]: bool
var Y[t]: real
X[t-1] -> X[t]
G -> Y[t]
P(G) = normal(0, 1)
P(X[0]) = 0.5
P(X[t] | X[t-1]) = { true: 0.7  false: 0.3 }
P(Y[t] | G) = normal(G, 1)
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = dbn.Compile(m)
	var pe *ir.Error
	if !errors.Is(err, dbn.ErrRealParent) || !errors.As(err, &pe) {
		t.Errorf("linear Gaussian: got %v", err)
	}
}

// twoState is the model of the long sequences: a two-state chain with a
// categorical sensor.
const twoState = `var X[t]: bool
var Y[t]: {a, b, c}
X[t-1] -> X[t]
X[t] -> Y[t]
P(X[0]) = 0.5
P(X[t] | X[t-1]) = { true: 0.9  false: 0.2 }
P(Y[t] | X[t]) = { true: [0.7, 0.2, 0.1]  false: [0.1, 0.3, 0.6] }
`

func longSeq(T int) dbn.Seq {
	steps := make([][]float64, T)
	flat := make([]float64, 2*T)
	for t := range steps {
		steps[t] = flat[2*t : 2*t+2]
		steps[t][0], steps[t][1] = -1, float64((t*7/5)%3)
	}
	return dbn.Seq{Steps: steps}
}

// TestSmoothMemory smooths 10^6 steps of a two-state model (package
// hmm's checkpointing) and checks the heap allocated beside the
// sequence: about 8 bytes a step for the symbols handed to package hmm,
// and O(√T) for smoothing itself, far below the 16 MB of every
// posterior.
func TestSmoothMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10^6-step sequence")
	}
	n := compile(t, twoState)
	T := 1_000_000
	seq := longSeq(T)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	steps := 0
	if err := n.Smooth(seq, []string{"X"}, func(int, [][]float64) error { steps++; return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("smoothing %d steps allocated %d bytes", T, alloc)
	if steps != T || alloc > 10<<20 {
		t.Fatalf("%d steps, %d bytes allocated", steps, alloc)
	}
	// The interface algorithm on the same model: O(√T) messages.
	slow := dbn.Slow(n)
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := slow.Smooth(seq, []string{"X"}, func(int, [][]float64) error { return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	t.Logf("interface algorithm: %d bytes allocated in all, heap in use %d", after.TotalAlloc-before.TotalAlloc, after.HeapInuse)
}
