package dbn_test

import (
	"errors"
	"fmt"
	"github.com/pbl-lang/pbl/internal/dbntest"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl"
	"github.com/pbl-lang/pbl/dbn"
)

const tol = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= tol } // false for NaN

// evidence is a sequence's observations: obs[t][v] (-1 missing) and the
// static's value (-1 unknown).
type evidence struct {
	obs [][]int
	s   int
}

func (e evidence) seq(static bool) dbn.Seq {
	var q dbn.Seq
	for _, row := range e.obs {
		r := make([]float64, len(row))
		for i, x := range row {
			r[i] = float64(x)
		}
		q.Steps = append(q.Steps, r)
	}
	if static {
		q.Static = []float64{float64(e.s)}
	}
	return q
}

// reference enumerates every assignment of slices 0..L-1 consistent
// with the evidence of steps before upto, calling f with its weight.
func reference(d *dbntest.DBN, L, upto int, e evidence, f func(x [][]int, sv int, w float64)) {
	d.Each(L, func(x [][]int, sv int) {
		if e.s >= 0 && d.STable != nil && sv != e.s {
			return
		}
		for t := range min(upto, L) {
			for v, o := range e.obs[t] {
				if o >= 0 && x[t][v] != o {
					return
				}
			}
		}
		f(x, sv, d.Joint(x, sv))
	})
}

// TestBruteForce checks Filter, Smooth, Predict, LogLik and Viterbi on
// random DBNs (one to three template variables, two or three states,
// orders 1 and 2, a static parent, zeros in the tables, missing
// observations) against enumeration of the unrolled joint.
func TestBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	checked := 0
	for trial := range 60 {
		n := 1 + trial%3
		order := 1 + (trial/3)%2
		k := 2 + (trial/6)%2
		static := trial%4 == 1
		T := 1 + r.IntN(5)
		for ; T > 1 && math.Pow(float64(k), float64(n*(T+2))) > 1<<18; T-- {
		}
		d := dbntest.New(r, n, k, order, static)
		m, err := pbl.Load("x.pbl", []byte(d.Src))
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, d.Src)
		}
		net, err := dbn.Compile(m)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		e := evidence{s: -1}
		if static && r.IntN(2) == 0 {
			e.s = r.IntN(k)
		}
		for range T {
			row := make([]int, n)
			for v := range row {
				row[v] = -1
				if r.IntN(5) < 2 {
					row[v] = r.IntN(k)
				}
			}
			e.obs = append(e.obs, row)
		}
		targets := net.Vars()
		if static {
			targets = append(targets, "S")
		}
		name := fmt.Sprintf("trial %d (n=%d k=%d order=%d T=%d static=%v)", trial, n, k, order, T, static)
		seq := e.seq(static)
		// marginals of the targets at step t over slices 0..L-1 given the
		// evidence before upto; z the total weight.
		marg := func(L, upto, at int) ([][]float64, float64) {
			post := make([][]float64, len(targets))
			for a := range post {
				post[a] = make([]float64, k)
			}
			z := 0.0
			reference(d, L, upto, e, func(x [][]int, sv int, w float64) {
				z += w
				for a := range n {
					post[a][x[at][a]] += w
				}
				if static {
					post[n][sv] += w
				}
			})
			for a := range post {
				for i := range post[a] {
					post[a][i] /= z
				}
			}
			return post, z
		}
		same := func(what string, got, want [][]float64) {
			t.Helper()
			for a := range want {
				for i := range want[a] {
					if !near(got[a][i], want[a][i]) {
						t.Fatalf("%s: %s: target %s state %d: got %v, want %v\n%s", name, what, targets[a], i, got[a][i], want[a][i], d.Src)
					}
				}
			}
		}
		_, z := marg(T, T, max(T-1, 0))
		ll, err := net.LogLik(seq)
		if !(z > 0) {
			if !errors.Is(err, dbn.ErrImpossible) {
				t.Fatalf("%s: impossible evidence: got %v", name, err)
			}
			var ie *dbn.ImpossibleError
			if !errors.As(err, &ie) || ie.Step >= T {
				t.Fatalf("%s: impossible evidence: %v", name, err)
			}
			continue
		}
		checked++
		if err != nil || !near(ll, math.Log(z)) {
			t.Fatalf("%s: LogLik = %v, %v; want %v", name, ll, err, math.Log(z))
		}
		err = net.Filter(seq, targets, func(s int, post [][]float64) error {
			want, _ := marg(s+1, s+1, s)
			same(fmt.Sprintf("filter at %d", s), post, want)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: Filter: %v", name, err)
		}
		seen := 0
		err = net.Smooth(seq, targets, func(s int, post [][]float64) error {
			seen++
			want, _ := marg(T, T, s)
			same(fmt.Sprintf("smooth at %d", s), post, want)
			return nil
		})
		if err != nil || seen != T {
			t.Fatalf("%s: Smooth: %v (%d steps)", name, err, seen)
		}
		steps := 2
		pred, err := net.Predict(seq, targets, steps)
		if err != nil {
			t.Fatalf("%s: Predict: %v", name, err)
		}
		for j := range steps {
			want, _ := marg(T+j+1, T, T+j)
			same(fmt.Sprintf("predict %d", j+1), pred[j], want)
		}
		// Viterbi: the best assignment by enumeration.
		best, bx, bs := -1.0, [][]int(nil), 0
		reference(d, T, T, e, func(x [][]int, sv int, w float64) {
			if w > best {
				best, bs = w, sv
				bx = make([][]int, len(x))
				for s := range x {
					bx[s] = append([]int(nil), x[s]...)
				}
			}
		})
		path, lp, err := net.Viterbi(seq, targets)
		if err != nil || !near(lp, math.Log(best)) {
			t.Fatalf("%s: Viterbi log p = %v, %v; want %v", name, lp, err, math.Log(best))
		}
		// The path's own probability must be the best (ties allowed).
		x := make([][]int, T)
		sv := 0
		for s := range T {
			x[s] = path[s][:n]
			if static {
				sv = path[s][n]
			}
		}
		if !near(math.Log(d.Joint(x, sv)), math.Log(best)) {
			t.Fatalf("%s: Viterbi path %v (S=%d) has log p %v, the best %v (%v, S=%d)", name, x, sv, math.Log(d.Joint(x, sv)), math.Log(best), bx, bs)
		}
	}
	if checked < 30 {
		t.Fatalf("only %d trials with possible evidence", checked)
	}
}
