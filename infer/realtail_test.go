package infer

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// This file checks real-valued evidence far out in its densities' tails
// (issue 27, item 1): x = 0.5 under normal(0, 0.01) is 1,250 nats below
// the peak, and the likelihoods of one observation then span more than
// float64 holds relative to one scale. The references are written out
// here: log-sum-exp over the discrete assignments, with the squared
// distances in big.Float, so that they share nothing with ir's
// NormalLogDensities.

// tailEngines are the engines a query can be given (pbl query --engine).
var tailEngines = []string{Enum, VE, JT, Auto}

// sensorModel is the model: Mode {calibrated, drifting} with
// P(calibrated) = prior, reading | Mode a normal density per mode, and
// Alarm | Mode = {calibrated: 0.1, drifting: 0.8}.
func sensorModel(t *testing.T, prior float64, mean, sd [2]float64) (m *ir.Model, mode, reading, alarm ir.VarID) {
	t.Helper()
	b := ir.NewBuilder("sensor")
	pos := ir.Pos{File: "sensor", Line: 1, Col: 1}
	mode, _ = b.AddVar(pos, "Mode", ir.Enum, []string{"calibrated", "drifting"}, 0)
	reading, _ = b.AddVar(pos, "reading", ir.Real, nil, 0)
	alarm, _ = b.AddVar(pos, "Alarm", ir.Enum, []string{"true", "false"}, 0)
	b.SetCPT(pos, mode, nil, []float64{prior, 1 - prior}, nil)
	b.SetParents(reading, []ir.VarID{mode})
	b.SetGaussian(pos, reading, []ir.VarID{mode}, mean[:], sd[:])
	b.SetCPT(pos, alarm, []ir.VarID{mode}, []float64{0.1, 0.9, 0.8, 0.2}, nil)
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return m, mode, reading, alarm
}

// bigLogNormal returns ln N(x; mean, sd) with (x − mean)/sd squared in
// big.Float: −ln sd − ln √(2π) − z²/2.
func bigLogNormal(x, mean, sd float64) *big.Float {
	const prec = 512
	z := new(big.Float).SetPrec(prec).SetFloat64(x)
	z.Sub(z, new(big.Float).SetPrec(prec).SetFloat64(mean))
	z.Quo(z, new(big.Float).SetPrec(prec).SetFloat64(sd))
	z.Mul(z, z)
	z.Quo(z, new(big.Float).SetPrec(prec).SetInt64(-2))
	return z.Add(z, new(big.Float).SetPrec(prec).SetFloat64(-math.Log(sd)-0.5*math.Log(2*math.Pi)))
}

// logSumExp returns ln Σ e^w over the finite ws (big), relative to their
// largest, as float64 with that largest: ln Σ = top + rest. It returns
// −Inf, 0 when every w is nil (−Inf).
func logSumExp(ws []*big.Float) (top *big.Float, rest float64) {
	for _, w := range ws {
		if w != nil && (top == nil || w.Cmp(top) > 0) {
			top = w
		}
	}
	if top == nil {
		return nil, math.Inf(-1)
	}
	s := 0.0
	for _, w := range ws {
		if w != nil {
			d, _ := new(big.Float).Sub(w, top).Float64()
			s += math.Exp(d)
		}
	}
	return top, math.Log(s)
}

// TestRealTailSensor: the example and its neighbours, on every
// engine: P(Alarm | reading=0.5, Mode=calibrated) is 0.1 (Alarm depends on
// reading only through Mode), the same with do(Mode=calibrated) and with
// Mode~[1, 0]; density(reading=0.5 | Mode=calibrated) is
// scipy.stats.norm.logpdf(0.5, 0, 0.01) = −1246.3137683472166
// (/usr/bin/python3, scipy 1.10); P(Alarm | Mode, reading=0.5) has its
// calibrated row. They said 'impossible evidence: P(Mode=calibrated) = 0',
// printed the density as 0, and left the row out.
func TestRealTailSensor(t *testing.T) {
	m, mode, reading, alarm := sensorModel(t, 0.9, [2]float64{0, 0.5}, [2]float64{0.01, 1})
	const logpdf = -1246.3137683472166 // scipy.stats.norm.logpdf(0.5, 0, 0.01)
	x := []ir.RealObs{{Var: reading, Value: 0.5}}
	cal := []ir.Obs{{Var: mode, State: 0}}
	table := func(text string) *ir.ProbQuery {
		return &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: text, Bar: true}, Conditions: ir.Conditions{Real: x}, Targets: []ir.VarID{alarm}, TargetStates: []int{-1}}
	}
	for _, eng := range tailEngines {
		opt := Options{Engine: eng}
		hard, do, soft := table("P(Alarm | reading=0.5, Mode=calibrated)"), table("P(Alarm | reading=0.5, do(Mode=calibrated))"), table("P(Alarm | reading=0.5, Mode~[1, 0])")
		hard.Evidence, do.Do, soft.Soft = cal, cal, []ir.SoftObs{{Var: mode, Lambda: []float64{1, 0}}}
		for _, q := range []ir.Query{hard, do, soft} {
			r, err := Answer(m, q, opt)
			if err != nil {
				t.Errorf("%v: %s: %v", eng, flat(q).Text, err)
				continue
			}
			if !(math.Abs(r.(*Table).Rows[0].P-0.1) <= 1e-12) || !(math.Abs(r.(*Table).Rows[1].P-0.9) <= 1e-12) {
				t.Errorf("%v: %s = %v, %v, want 0.1, 0.9", eng, flat(q).Text, r.(*Table).Rows[0].P, r.(*Table).Rows[1].P)
			}
		}
		for _, q := range []ir.Query{
			&ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(reading=0.5 | Mode=calibrated)"}, Conditions: ir.Conditions{Evidence: cal}, Values: x},
			&ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(reading=0.5 | do(Mode=calibrated))"}, Conditions: ir.Conditions{Do: cal}, Values: x},
			&ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(reading=0.5 | Mode~[1, 0])"}, Conditions: ir.Conditions{Soft: []ir.SoftObs{{Var: mode, Lambda: []float64{1, 0}}}}, Values: x},
		} {
			r, err := Answer(m, q, opt)
			if err != nil {
				t.Errorf("%v: %s: %v", eng, flat(q).Text, err)
				continue
			}
			if !(math.Abs(r.(*Density).LogDensity-logpdf) <= 1e-9) {
				t.Errorf("%v: %s: ln density %v, want %v", eng, flat(q).Text, r.(*Density).LogDensity, logpdf)
			}
		}
		free := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Alarm | Mode, reading=0.5)", Bar: true}, Conditions: ir.Conditions{Free: []ir.VarID{mode}, Real: x}, Targets: []ir.VarID{alarm}, TargetStates: []int{-1}}
		r, err := Answer(m, free, opt)
		if err != nil {
			t.Errorf("%v: %s: %v", eng, free.Text, err)
			continue
		}
		want := []float64{0.1, 0.9, 0.8, 0.2}
		if len(r.(*Table).Rows) != 4 || r.(*Table).Omitted != 0 {
			t.Errorf("%v: %s: %d rows (%d omitted), want 4", eng, free.Text, len(r.(*Table).Rows), r.(*Table).Omitted)
			continue
		}
		for i, row := range r.(*Table).Rows {
			if !(math.Abs(row.P-want[i]) <= 1e-12) {
				t.Errorf("%v: %s: row %d = %v, want %v", eng, free.Text, i, row.P, want[i])
			}
		}
	}
}

// TestRealTailGrid: P(Mode | reading=x) and density(reading=x) for x from
// 0 to 1e3 and standard deviations from 1e-3 to 1e3, against the closed
// forms in big.Float: P(calibrated | x) = 1/(1 + e^(w_d − w_c)) with
// w = ln P(mode) + ln N(x; μ, σ), and the density is log-sum-exp of the
// w. Given Mode, P(Alarm=true | x, Mode=m) is the table's 0.1 or 0.8
// whatever x.
func TestRealTailGrid(t *testing.T) {
	for _, x := range []float64{0, 0.5, 1, 3, 10, 1e2, 1e3} {
		for _, sc := range []float64{1e-3, 1e-2, 1, 1e2, 1e3} {
			for _, sd := range []float64{1e-3, 1, 1e3} {
				mean, sds := [2]float64{0, 0.5}, [2]float64{sc, sd}
				m, mode, reading, alarm := sensorModel(t, 0.9, mean, sds)
				obs := []ir.RealObs{{Var: reading, Value: x}}
				w := []*big.Float{
					bigLogNormal(x, mean[0], sds[0]), bigLogNormal(x, mean[1], sds[1]),
				}
				w[0].Add(w[0], big.NewFloat(math.Log(0.9)))
				w[1].Add(w[1], big.NewFloat(math.Log(0.1)))
				d, _ := new(big.Float).Sub(w[1], w[0]).Float64()
				pc := 1 / (1 + math.Exp(d))
				top, rest := logSumExp(w)
				lt, _ := top.Float64()
				logDens := lt + rest
				for _, eng := range tailEngines {
					opt := Options{Engine: eng}
					name := fmt.Sprintf("x=%g, σ=(%g, %g), %v", x, sc, sd, eng)
					r, err := Answer(m, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Mode | reading)", Bar: true}, Conditions: ir.Conditions{Real: obs}, Targets: []ir.VarID{mode}, TargetStates: []int{-1}}, opt)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					if !(math.Abs(r.(*Table).Rows[0].P-pc) <= 1e-12) {
						t.Errorf("%s: P(calibrated | x) = %v, want %v", name, r.(*Table).Rows[0].P, pc)
					}
					dr, err := Answer(m, &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(reading)"}, Values: obs}, opt)
					if err != nil {
						t.Errorf("%s: density: %v", name, err)
					} else if !(math.Abs(dr.(*Density).LogDensity-logDens) <= 1e-9*max(1, math.Abs(logDens))) {
						t.Errorf("%s: ln density %v, want %v", name, dr.(*Density).LogDensity, logDens)
					}
					for s, want := range []float64{0.1, 0.8} {
						q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Alarm=true | reading, Mode=m)", Bar: true}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: mode, State: s}}, Real: obs}, Targets: []ir.VarID{alarm}, TargetStates: []int{0}}
						r, err := Answer(m, q, opt)
						if err != nil {
							t.Errorf("%s, Mode=%d: %v", name, s, err)
						} else if !(math.Abs(r.(*Number).P-want) <= 1e-12) {
							t.Errorf("%s, Mode=%d: P(Alarm=true | ...) = %v, want %v", name, s, r.(*Number).P, want)
						}
						want := bigLogNormal(x, mean[s], sds[s])
						lw, _ := want.Float64()
						dq := &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(reading | Mode=m)"}, Conditions: ir.Conditions{Evidence: []ir.Obs{{Var: mode, State: s}}}, Values: obs}
						if dr, err := Answer(m, dq, opt); err != nil {
							t.Errorf("%s, Mode=%d: density: %v", name, s, err)
						} else if !(math.Abs(dr.(*Density).LogDensity-lw) <= 1e-9*max(1, math.Abs(lw))) {
							t.Errorf("%s, Mode=%d: ln density %v, want %v", name, s, dr.(*Density).LogDensity, lw)
						}
					}
				}
			}
		}
	}
}

// TestRealTailSensors: three sensors of Mode, two for calibrated by 400
// nats each, one for drifting by 1,000: each density's largest entry is
// at a different mode, the joint best (drifting, 800 below the product of
// the largest) is beyond float64 from it. With two copies of Mode (B = A
// by a table), a sensor of each: A's favours a, B's b, both by 1,000 —
// the only possible configurations, (a, a) and (b, b), are each 1,000
// below the product of the two largest.
func TestRealTailSensors(t *testing.T) {
	b := ir.NewBuilder("sensors")
	pos := ir.Pos{File: "sensors", Line: 1, Col: 1}
	mode, _ := b.AddVar(pos, "Mode", ir.Enum, []string{"a", "b"}, 0)
	b.SetCPT(pos, mode, nil, []float64{0.5, 0.5}, nil)
	copyV, _ := b.AddVar(pos, "Copy", ir.Enum, []string{"a", "b"}, 0)
	b.SetCPT(pos, copyV, []ir.VarID{mode}, []float64{1, 0, 0, 1}, nil)
	// ln N(x; 0, 1) − ln N(x; μ, 1) = μ(μ/2 − x)... set the readings so
	// that the differences are ±400 and 1,000 exactly: x = 0, μ = √800
	// gives −400 for the second mode; μ = √2000, −1,000.
	add := func(name string, parent ir.VarID, mean []float64) ir.VarID {
		v, _ := b.AddVar(pos, name, ir.Real, nil, 0)
		b.SetParents(v, []ir.VarID{parent})
		b.SetGaussian(pos, v, []ir.VarID{parent}, mean, []float64{1, 1})
		return v
	}
	s1 := add("s1", mode, []float64{0, math.Sqrt(800)})
	s2 := add("s2", mode, []float64{0, math.Sqrt(800)})
	s3 := add("s3", mode, []float64{math.Sqrt(2000), 0})
	c1 := add("c1", mode, []float64{0, math.Sqrt(2000)})
	c2 := add("c2", copyV, []float64{math.Sqrt(2000), 0})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	ln := func(v ir.VarID, x float64, s int) *big.Float {
		g := m.Gaussian(v)
		return bigLogNormal(x, g.Mean[s], g.SD[s])
	}
	sum := func(xs ...*big.Float) *big.Float {
		s := new(big.Float).SetPrec(512)
		for _, x := range xs {
			s.Add(s, x)
		}
		return s
	}
	obs3 := []ir.RealObs{{Var: s1, Value: 0}, {Var: s2, Value: 0}, {Var: s3, Value: 0}}
	wa := sum(ln(s1, 0, 0), ln(s2, 0, 0), ln(s3, 0, 0))
	wb := sum(ln(s1, 0, 1), ln(s2, 0, 1), ln(s3, 0, 1))
	d, _ := new(big.Float).Sub(wa, wb).Float64() // ≈ −200
	pa3 := math.Exp(d) / (1 + math.Exp(d))
	obsC := []ir.RealObs{{Var: c1, Value: 0}, {Var: c2, Value: 0}}
	for _, eng := range tailEngines {
		opt := Options{Engine: eng}
		r, err := Answer(m, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Mode | s1, s2, s3)", Bar: true}, Conditions: ir.Conditions{Real: obs3}, Targets: []ir.VarID{mode}, TargetStates: []int{-1}}, opt)
		if err != nil {
			t.Errorf("%v: three sensors: %v", eng, err)
		} else if !(math.Abs(r.(*Table).Rows[0].P-pa3) <= 1e-12) {
			t.Errorf("%v: three sensors: P(a) = %v, want %v", eng, r.(*Table).Rows[0].P, pa3)
		}
		r, err = Answer(m, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Mode | c1, c2)", Bar: true}, Conditions: ir.Conditions{Real: obsC}, Targets: []ir.VarID{mode}, TargetStates: []int{-1}}, opt)
		if err != nil {
			t.Errorf("%v: copies: %v", eng, err)
		} else if !(math.Abs(r.(*Table).Rows[0].P-0.5) <= 1e-12) {
			t.Errorf("%v: copies: P(a) = %v, want 0.5", eng, r.(*Table).Rows[0].P)
		}
	}
}

// tailNet is a random small network for TestRealTailProperty: discrete
// variables (some CPT entries 0), real ones with normal densities given
// up to two discrete parents, standard deviations from 1e-3 to 1e3.
type tailNet struct {
	m     *ir.Model
	disc  []ir.VarID
	reals []ir.VarID
}

func newTailNet(t *testing.T, r *rand.Rand) tailNet {
	t.Helper()
	b := ir.NewBuilder("tail")
	pos := ir.Pos{File: "tail", Line: 1, Col: 1}
	var n tailNet
	nd := 2 + r.IntN(3)
	card := func(v ir.VarID) int { return len(b.Model().Vars[v].States) }
	for i := range nd {
		k := 2 + r.IntN(2)
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprintf("s%d", s)
		}
		v, _ := b.AddVar(pos, fmt.Sprintf("d%d", i), ir.Enum, states, 0)
		var parents []ir.VarID
		for _, p := range n.disc {
			if len(parents) < 2 && r.IntN(2) == 0 {
				parents = append(parents, p)
			}
		}
		n.disc = append(n.disc, v)
		size := k
		for _, p := range parents {
			size *= card(p)
		}
		vals := make([]float64, size)
		for row := 0; row < size; row += k {
			s := 0.0
			for j := range k {
				if r.IntN(5) > 0 || j == k-1 && s == 0 {
					vals[row+j] = 0.01 + r.Float64()
				}
				s += vals[row+j]
			}
			for j := range k {
				vals[row+j] /= s
			}
		}
		b.SetCPT(pos, v, parents, vals, nil)
	}
	nr := 1 + r.IntN(3)
	for i := range nr {
		x, _ := b.AddVar(pos, fmt.Sprintf("x%d", i), ir.Real, nil, 0)
		var parents []ir.VarID
		for _, p := range n.disc {
			if len(parents) < 2 && r.IntN(2) == 0 {
				parents = append(parents, p)
			}
		}
		u := 1
		for _, p := range parents {
			u *= card(p)
		}
		mean, sd := make([]float64, u), make([]float64, u)
		for j := range u {
			mean[j] = r.Float64()*2 - 1
			sd[j] = math.Pow(10, -3+6*r.Float64())
		}
		b.SetParents(x, parents)
		b.SetGaussian(pos, x, parents, mean, sd)
		n.reals = append(n.reals, x)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	n.m = m
	return n
}

// tailCase is a query's evidence for the brute force: discrete evidence,
// interventions, likelihood evidence and real values.
type tailCase struct {
	ev   []ir.Obs
	do   []ir.Obs
	soft []ir.SoftObs
	real []ir.RealObs
}

// logWeights returns, for every assignment of the discrete variables (in
// odometer order, the last fastest), ln of its weight: the CPTs (a point
// mass for a variable set by do), the likelihood evidence and the real
// values' densities; nil where the assignment disagrees with the evidence
// or the interventions, or has weight 0.
func (n tailNet) logWeights(c tailCase) ([][]int, []*big.Float) {
	m := n.m
	fixed := make([]int, len(m.Vars))
	for v := range fixed {
		fixed[v] = -1
	}
	done := make([]bool, len(m.Vars))
	for _, o := range c.ev {
		fixed[o.Var] = o.State
	}
	for _, o := range c.do {
		fixed[o.Var] = o.State
		done[o.Var] = true
	}
	var as [][]int
	var ws []*big.Float
	a := make([]int, len(m.Vars))
	var rec func(i int)
	rec = func(i int) {
		if i == len(n.disc) {
			as = append(as, slices.Clone(a))
			w := new(big.Float).SetPrec(512)
			for _, v := range n.disc {
				if done[v] {
					continue
				}
				f := m.Factor(v)
				p := f.Vals[entryOf(f, a)]
				if p == 0 {
					ws = append(ws, nil)
					return
				}
				w.Add(w, big.NewFloat(math.Log(p)))
			}
			for _, s := range c.soft {
				l := s.Lambda[a[s.Var]]
				if l == 0 {
					ws = append(ws, nil)
					return
				}
				w.Add(w, big.NewFloat(math.Log(l)))
			}
			for _, o := range c.real {
				g := m.Gaussian(o.Var)
				u := 0
				for _, p := range g.Parents {
					u = u*len(m.Vars[p].States) + a[p]
				}
				w.Add(w, bigLogNormal(o.Value, g.Mean[u], g.SD[u]))
			}
			ws = append(ws, w)
			return
		}
		v := n.disc[i]
		for s := range m.Vars[v].States {
			if fixed[v] >= 0 && s != fixed[v] {
				continue
			}
			a[v] = s
			rec(i + 1)
		}
	}
	rec(0)
	return as, ws
}

// TestRealTailProperty: on random small networks whose real values lie
// far out in their densities' tails (x up to ±1e3, standard deviations
// from 1e-3 to 1e3), with discrete evidence, do(...) and likelihood
// evidence mixed in at random, every engine's P(target | e), P(target |
// given, e), P(target=s | e), MPE and density(values | e) match brute
// force in log space, and evidence is called impossible exactly when it
// is.
func TestRealTailProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	trials := 300
	if testing.Short() || raceEnabled {
		trials = 60 // under the race detector, ten times slower
	}
	for trial := range trials {
		n := newTailNet(t, r)
		m := n.m
		var c tailCase
		free := slices.Clone(n.disc)
		r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		take := func() ir.VarID { v := free[0]; free = free[1:]; return v }
		for len(free) > 2 && r.IntN(3) == 0 {
			v := take()
			c.ev = append(c.ev, ir.Obs{Var: v, State: r.IntN(len(m.Vars[v].States))})
		}
		if len(free) > 2 && r.IntN(3) == 0 {
			v := take()
			c.do = append(c.do, ir.Obs{Var: v, State: r.IntN(len(m.Vars[v].States))})
		}
		if len(free) > 2 && r.IntN(3) == 0 {
			v := take()
			l := make([]float64, len(m.Vars[v].States))
			for i := range l {
				l[i] = float64(r.IntN(3)) / 2
			}
			l[r.IntN(len(l))] = 1
			c.soft = append(c.soft, ir.SoftObs{Var: v, Lambda: l})
		}
		for _, v := range n.reals {
			if r.IntN(4) > 0 || len(c.real) == 0 {
				x := 0.0
				switch r.IntN(4) {
				case 0:
				case 1:
					x = r.Float64()*2 - 1
				default:
					x = math.Pow(10, -3+6*r.Float64()) * float64(1-2*r.IntN(2))
				}
				c.real = append(c.real, ir.RealObs{Var: v, Value: x})
			}
		}
		target, given := take(), take()
		as, ws := n.logWeights(c)
		top, rest := logSumExp(ws)
		impossible := top == nil
		// post returns P(target=s (, given=g) | ...) from the weights of
		// the assignments that keep(a).
		post := func(keep func(a []int) bool) []float64 {
			var sel []*big.Float
			var idx []int
			for i, a := range as {
				if ws[i] != nil && keep(a) {
					sel = append(sel, ws[i])
					idx = append(idx, i)
				}
			}
			p := make([]float64, len(m.Vars[target].States))
			tp, _ := logSumExp(sel)
			if tp == nil {
				return nil
			}
			for k, w := range sel {
				d, _ := new(big.Float).Sub(w, tp).Float64()
				p[as[idx[k]][target]] += math.Exp(d)
			}
			s := 0.0
			for _, x := range p {
				s += x
			}
			for i := range p {
				p[i] /= s
			}
			return p
		}
		// tol: ln weights of magnitude L carry an absolute error of about
		// L·1e-16 in float64, which moves a probability by as much.
		L := 1.0
		for _, w := range ws {
			if w != nil {
				f, _ := w.Float64()
				L = max(L, math.Abs(f))
			}
		}
		tol := 1e-10 + 1e-15*L
		name := func(eng string, what string) string {
			return fmt.Sprintf("trial %d (%d vars, ev %v, do %v, soft %v, real %v), %v, %s", trial, len(m.Vars), c.ev, c.do, c.soft, c.real, eng, what)
		}
		cond := ir.Conditions{Evidence: c.ev, Do: c.do, Soft: c.soft, Real: c.real}
		want := post(func([]int) bool { return true })
		for _, eng := range tailEngines {
			opt := Options{Engine: eng}
			q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(target | e)", Bar: true}, Conditions: cond, Targets: []ir.VarID{target}, TargetStates: []int{-1}}
			res, err := Answer(m, q, opt)
			if impossible {
				if !errors.Is(err, ErrImpossible) {
					t.Errorf("%s: want impossible evidence, got %v", name(eng, q.Text), err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name(eng, q.Text), err)
				continue
			}
			for i, row := range res.(*Table).Rows {
				if !(math.Abs(row.P-want[row.Values[0]]) <= tol) {
					t.Errorf("%s: row %d = %v, want %v", name(eng, q.Text), i, row.P, want[row.Values[0]])
				}
			}
			// P(target=s | e) for the least likely state.
			s := 0
			for i, p := range want {
				if p < want[s] {
					s = i
				}
			}
			q.Text, q.TargetStates = "P(target=s | e)", []int{s}
			if res, err := Answer(m, q, opt); err != nil {
				t.Errorf("%s: %v", name(eng, q.Text), err)
			} else if !(math.Abs(res.(*Number).P-want[s]) <= tol) {
				t.Errorf("%s = %v, want %v", name(eng, q.Text), res.(*Number).P, want[s])
			}
			// P(target | given, e): a row per state of given that is
			// possible.
			q.Text, q.TargetStates, q.Free = "P(target | given, e)", []int{-1}, []ir.VarID{given}
			res, err = Answer(m, q, opt)
			if err != nil {
				t.Errorf("%s: %v", name(eng, q.Text), err)
			} else {
				rows := 0
				for g := range m.Vars[given].States {
					w := post(func(a []int) bool { return a[given] == g })
					if w == nil {
						continue
					}
					for _, row := range res.(*Table).Rows {
						if row.GivenValues[0] == g {
							rows++
							if !(math.Abs(row.P-w[row.Values[0]]) <= tol) {
								t.Errorf("%s: given=%d, target=%d: %v, want %v", name(eng, q.Text), g, row.Values[0], row.P, w[row.Values[0]])
							}
						}
					}
				}
				if rows != len(res.(*Table).Rows) {
					t.Errorf("%s: %d rows, want %d", name(eng, q.Text), len(res.(*Table).Rows), rows)
				}
			}
			// MPE: the probability of the best assignment given e.
			mq := &ir.MPEQuery{QueryHeader: ir.QueryHeader{Text: "MPE(e)", Bar: true}, Conditions: cond}
			if res, err := Answer(m, mq, opt); err != nil {
				t.Errorf("%s: %v", name(eng, mq.Text), err)
			} else {
				wantP := math.Exp(-rest) // the largest weight over their sum
				if !(math.Abs(res.(*Assignment).P-wantP) <= tol) {
					t.Errorf("%s: p = %v, want %v", name(eng, mq.Text), res.(*Assignment).P, wantP)
				}
			}
			// density(values | e): ln Σ w with the values − ln Σ w without.
			{
				dc := cond
				dc.Real = nil
				dq := &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(values | e)", Bar: true}, Conditions: dc, Values: c.real}
				noReal := c
				noReal.real = nil
				_, w0 := n.logWeights(noReal)
				t0, r0 := logSumExp(w0)
				d, _ := new(big.Float).Sub(top, t0).Float64()
				wantLog := d + rest - r0
				if res, err := Answer(m, dq, opt); err != nil {
					t.Errorf("%s: %v", name(eng, dq.Text), err)
				} else if !(math.Abs(res.(*Density).LogDensity-wantLog) <= tol*max(1, math.Abs(wantLog))) {
					t.Errorf("%s: ln density %v, want %v", name(eng, dq.Text), res.(*Density).LogDensity, wantLog)
				}
			}
		}
	}
}

// TestRealTailTinyPrior: a configuration the discrete evidence makes
// tiny (P(b) = 1e-300, five findings of 1e-100 each under b: ln P(b | e)
// ≈ −1842.07) lifted by a reading that favours it by Δ nats. For Δ = 737
// or 3000 it wins outright (P(b | e, x) = 1/(1 + e^−(Δ + ln P(b | e) −
// ln P(a | e)))), computed where the potentials of the far path reach
// e^700; for Δ = 1842.07 + 5 both weigh alike (b 5 nats more), which
// float64 cannot hold beside each other: an error of kind ErrRange, not
// a wrong number.
func TestRealTailTinyPrior(t *testing.T) {
	// ln P(b | e) − ln P(a | e): ln 1e-300 + 5 ln 1e-100 (P(a | e) ≈ 1).
	lb := math.Log(1e-300) + 5*math.Log(1e-100)
	for _, tc := range []struct {
		delta float64 // ln N(x; μ_b, 1) − ln N(x; μ_a, 1) at x = μ_b
		fail  bool
	}{{737, false}, {3000, false}, {-lb + 5, true}} {
		mu := math.Sqrt(2 * tc.delta) // ln N(μ; μ, 1) − ln N(μ; 0, 1) = μ²/2
		b := ir.NewBuilder("tiny")
		pos := ir.Pos{File: "tiny", Line: 1, Col: 1}
		mode, _ := b.AddVar(pos, "Mode", ir.Enum, []string{"a", "b"}, 0)
		b.SetCPT(pos, mode, nil, []float64{1, 1e-300}, nil)
		var ev []ir.Obs
		for i := range 5 {
			e, _ := b.AddVar(pos, fmt.Sprintf("E%d", i), ir.Enum, []string{"yes", "no"}, 0)
			b.SetCPT(pos, e, []ir.VarID{mode}, []float64{1, 0, 1e-100, 1 - 1e-100}, nil)
			ev = append(ev, ir.Obs{Var: e, State: 0})
		}
		x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
		b.SetParents(x, []ir.VarID{mode})
		b.SetGaussian(pos, x, []ir.VarID{mode}, []float64{0, mu}, []float64{1, 1})
		m, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		obs := []ir.RealObs{{Var: x, Value: mu}}
		want := 1 / (1 + math.Exp(-(tc.delta + lb)))
		for _, eng := range tailEngines {
			name := fmt.Sprintf("Δ = %g, %v", tc.delta, eng)
			r, err := Answer(m, &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(Mode | e, x)", Bar: true}, Conditions: ir.Conditions{Evidence: ev, Real: obs}, Targets: []ir.VarID{mode}, TargetStates: []int{-1}}, Options{Engine: eng})
			if tc.fail {
				if !errors.Is(err, ErrRange) {
					t.Errorf("%s: want an error of kind ErrRange, got %v, %v", name, r, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if !(math.Abs(r.(*Table).Rows[1].P-want) <= 1e-12) {
				t.Errorf("%s: P(b | e, x) = %v, want %v", name, r.(*Table).Rows[1].P, want)
			}
		}
	}
}
