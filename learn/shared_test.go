package learn_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pbl-lang/pbl/data"
	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// TestLearnSharedModel: a model is a value. Several goroutines learn from
// one shared model at once (with the race detector, go test -race, this is
// also a test of that), each from its own data and with its own method,
// while others query it; each gets the model a learner alone would, and
// the shared model is as it was: its open variables without states, its
// structure without numbers, its one table unchanged.
func TestLearnSharedModel(t *testing.T) {
	const src = `naive_bayes C given A, B
var D: {d1, d2}
C -> D
`
	m := loadModel(t, src)
	before := describe(m)
	methods := []learn.Options{{}, {Method: learn.Bayes, Alpha: 1}, {Method: learn.Bayes, ESS: 4}, {Method: learn.MEstimate, M: 2}}
	const workers = 8
	csvs := make([][]byte, workers)
	for w := range csvs {
		csvs[w] = randomCSV(rand.New(rand.NewPCG(uint64(w), 7)), 500)
	}
	learnOne := func(w int) *ir.Model {
		out, _, err := learn.Learn(m, func(m *ir.Model) (*data.Reader, error) {
			return data.NewReader("d.csv", bytes.NewReader(csvs[w]), m, data.Options{})
		}, methods[w%len(methods)])
		if err != nil {
			t.Error(err)
			return nil
		}
		return out
	}
	want := make([]string, workers)
	for w := range want {
		want[w] = describe(learnOne(w))
	}
	got := make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			got[w] = describe(learnOne(w))
		}()
		go func() {
			// A query on the shared model while it is learned from: its
			// unlearned variables make it an error, every time.
			defer wg.Done()
			q := &ir.ProbQuery{Targets: []ir.VarID{0}, TargetStates: []int{-1}}
			if _, err := infer.Answer(m, q, infer.Options{}); err == nil {
				t.Error("a query on the unlearned model was answered")
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		if got[w] != want[w] {
			t.Errorf("worker %d learned, concurrently:\n%s\nalone:\n%s", w, got[w], want[w])
		}
	}
	if after := describe(m); after != before {
		t.Errorf("the shared model changed:\n%s\nwas:\n%s", after, before)
	}
}

// randomCSV returns n rows of C, A, B, D with states drawn at random (the
// open variables' states appear in a random order) and a few cells missing.
func randomCSV(r *rand.Rand, n int) []byte {
	var b strings.Builder
	b.WriteString("C,A,B,D\n")
	cell := func(states ...string) string {
		if r.IntN(20) == 0 {
			return ""
		}
		return states[r.IntN(len(states))]
	}
	for range n {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", cell("c1", "c2", "c3"), cell("a1", "a2"), cell("b1", "b2", "b3", "b4"), cell("d1", "d2"))
	}
	return []byte(b.String())
}

// describe prints a model's variables, states and numbers.
func describe(m *ir.Model) string {
	if m == nil {
		return "<nil>"
	}
	var b strings.Builder
	for v, x := range m.Vars {
		fmt.Fprintf(&b, "%s %v open=%v parents=%v", x.Name, x.States, x.Open, m.Parents[v])
		if f := m.Factor(ir.VarID(v)); f != nil {
			fmt.Fprintf(&b, " %v", f.Vals)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
