package learn_test

import (
	"math"
	"sync/atomic"
	"testing"

	"github.com/pbl-lang/pbl/infer"
	"github.com/pbl-lang/pbl/ir"
	"github.com/pbl-lang/pbl/learn"
)

// brute is a second implementation of infer.Learner, by enumeration of
// every assignment of a tiny network's discrete variables: the product of
// its tables and of the row's likelihoods in the slots (the model's
// potentials), summed where the row agrees. It shares nothing with the
// junction tree but the model.
type brute struct{ m *ir.Model }

// bruteRows counts the rows brute has calibrated: the learners did run
// on it.
var bruteRows atomic.Int64

func compileBrute(m *ir.Model, _ infer.Options) (infer.Learner, error) { return brute{m}, nil }

func (b brute) Install(m *ir.Model) (infer.Learner, error) { return brute{m}, nil }

func (b brute) Expect(rows [][]int, weights []float64, acc [][]float64) (infer.ExpectStats, error) {
	lr := make([]infer.LikRow, len(rows))
	for r, row := range rows {
		lr[r] = infer.LikRow{Obs: row, Weight: 1}
		if weights != nil {
			lr[r].Weight = weights[r]
		}
	}
	return b.ExpectLik(lr, acc, nil, nil)
}

// entry returns f's entry at the assignment a (states by VarID).
func entry(f *ir.Factor, a []int) int {
	i := 0
	for k, v := range f.Vars {
		i += a[v] * f.Stride[k]
	}
	return i
}

func (b brute) ExpectLik(rows []infer.LikRow, acc [][]float64, post [][][]float64, logp []float64) (infer.ExpectStats, error) {
	bruteRows.Add(int64(len(rows)))
	m := b.m
	var vars []ir.VarID
	n := 1
	for v := range m.Vars {
		if m.Discrete(ir.VarID(v)) {
			vars = append(vars, ir.VarID(v))
			n *= len(m.Vars[v].States)
		}
	}
	var st infer.ExpectStats
	a := make([]int, len(m.Vars))
	p := make([]float64, n)
	for r, row := range rows {
		z := 0.0
		for i := range n {
			p[i] = 0
			k, agree := i, true
			for j := len(vars) - 1; j >= 0; j-- {
				c := len(m.Vars[vars[j]].States)
				a[vars[j]] = k % c
				k /= c
				agree = agree && (row.Obs[vars[j]] < 0 || row.Obs[vars[j]] == a[vars[j]])
			}
			if !agree {
				continue
			}
			x := 1.0
			for _, v := range vars {
				f := m.Factor(v)
				x *= f.Vals[entry(f, a)]
			}
			for j, l := range row.Lik {
				if l != nil {
					x *= l[entry(m.Potentials[j], a)]
				}
			}
			p[i] = x
			z += x
		}
		if z == 0 {
			st.Impossible++
			if logp != nil {
				logp[r] = math.Inf(-1)
			}
			continue
		}
		if logp != nil {
			logp[r] = math.Log(z)
		}
		st.Rows++
		st.LogLik += row.Weight * math.Log(z)
		if post != nil {
			for _, d := range post[r] {
				clear(d)
			}
		}
		for i, x := range p {
			if x == 0 {
				continue
			}
			k := i
			for j := len(vars) - 1; j >= 0; j-- {
				c := len(m.Vars[vars[j]].States)
				a[vars[j]] = k % c
				k /= c
			}
			for v, t := range acc {
				if t != nil {
					t[entry(m.Factor(ir.VarID(v)), a)] += row.Weight * x / z
				}
			}
			if post != nil {
				for j, d := range post[r] {
					if d != nil {
						d[entry(m.Potentials[j], a)] += x / z
					}
				}
			}
		}
	}
	return st, nil
}

// TestEMOnAnotherEngine: EM and gradient ascent run on any infer.Learner
// (Options.Inference), not only the junction tree. On a network with a
// hidden class, missing cells and a real variable given the class (and
// without it: the Expect path), several random starts, 40 iterations of
// EM (MLE and MAP) or 12 of gradient ascent, the brute-force engine above
// reaches the junction tree's parameters, log-likelihoods and iterations
// (their sums differ in order only). TestEMFarTails checks both engines against
// mpmath.
func TestEMOnAnotherEngine(t *testing.T) {
	const discrete = "var H: {a, b}\nvar X: {x0, x1, x2}\nvar Y: {y0, y1}\nH -> X\nH -> Y\nX -> Y\n"
	const real = discrete + "var r: real\nP(r | H) = { a: normal(0, 1)  b: normal(2, 1) }\n"
	csv := "X,Y,r\nx0,y0,0.1\nx1,,2.3\n,y1,1.9\nx2,y1,\nx0,y1,-0.4\nx1,y0,2.8\n,,0.7\nx2,y0,1.5\nx0,,\nx1,y1,2.2\n"
	dcsv := "X,Y\nx0,y0\nx1,\n,y1\nx2,y1\nx0,y1\nx1,y0\nx2,y0\nx0,\nx1,y1\nx2,\n"
	for _, c := range []struct {
		name, model, csv string
		opt              learn.Options
	}{
		{"em with a density", real, csv, learn.Options{Method: learn.EM, Seed: 3, Restarts: 3, MaxIter: 40}},
		{"em, discrete", discrete, dcsv, learn.Options{Method: learn.EM, Seed: 3, Restarts: 3, MaxIter: 40}},
		{"map em", real, csv, learn.Options{Method: learn.EM, Seed: 5, MaxIter: 40, Alpha: 1}},
		{"gradient", discrete, dcsv, learn.Options{Method: learn.Gradient, Seed: 3, MaxIter: 12}}, // before the line search meets rounding
	} {
		t.Run(c.name, func(t *testing.T) {
			m := loadModel(t, c.model)
			tree, trep, err := learn.Learn(m, opener(t, "d.csv", []byte(c.csv), m), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			opt := c.opt
			opt.Inference = compileBrute
			before := bruteRows.Load()
			other, orep, err := learn.Learn(m, opener(t, "d.csv", []byte(c.csv), m), opt)
			if err != nil {
				t.Fatal(err)
			}
			if bruteRows.Load() == before {
				t.Fatal("the learner did not run on the engine of Options.Inference")
			}
			if trep.Iterations < 5 {
				t.Fatalf("%d iterations: too few to compare", trep.Iterations)
			}
			if trep.Iterations != orep.Iterations || trep.Best != orep.Best || maxRel(trep.Trace, orep.Trace) > 1e-9 {
				t.Errorf("junction tree: %d iterations, start %d, %v\nbrute force:   %d iterations, start %d, %v", trep.Iterations, trep.Best, trep.Trace, orep.Iterations, orep.Best, orep.Trace)
			}
			for v := range tree.Vars {
				switch d := tree.Dist(ir.VarID(v)).(type) {
				case *ir.CPT:
					if got := other.Factor(ir.VarID(v)).Vals; maxDiff(got, d.Factor.Vals) > 1e-9 {
						t.Errorf("%s: brute force %v, junction tree %v", tree.Vars[v].Name, got, d.Factor.Vals)
					}
				case *ir.Gaussian:
					g := other.Gaussian(ir.VarID(v))
					if maxRel(g.Mean, d.Mean) > 1e-9 || maxRel(g.SD, d.SD) > 1e-9 {
						t.Errorf("%s: brute force %v %v, junction tree %v %v", tree.Vars[v].Name, g.Mean, g.SD, d.Mean, d.SD)
					}
				}
			}
		})
	}
}

// maxRel returns the largest relDiff of a's entries from b's (+Inf if
// their lengths differ or one is NaN).
func maxRel(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, relDiff(a[i], b[i]))
	}
	return d
}
