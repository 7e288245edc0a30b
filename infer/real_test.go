package infer

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pbl-lang/pbl/ir"
)

// realNet is a random Bayesian network of discrete variables with real
// children: each real variable has a normal density given one or two
// discrete parents.
type realNet struct {
	m     *ir.Model
	disc  []ir.VarID
	reals []ir.VarID
}

func newRealNet(t *testing.T, r *rand.Rand) realNet {
	t.Helper()
	b := ir.NewBuilder("real")
	pos := ir.Pos{File: "real", Line: 1, Col: 1}
	var net realNet
	nd := 3 + r.IntN(3)
	for i := range nd {
		k := 2 + r.IntN(2)
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprintf("s%d", s)
		}
		v, _ := b.AddVar(pos, fmt.Sprintf("d%d", i), ir.Enum, states, 0)
		net.disc = append(net.disc, v)
	}
	card := func(v ir.VarID) int { return len(b.Model().Vars[v].States) }
	for i, v := range net.disc {
		var parents []ir.VarID
		for _, p := range net.disc[:i] {
			if len(parents) < 2 && r.IntN(2) == 0 {
				parents = append(parents, p)
			}
		}
		size := card(v)
		for _, p := range parents {
			size *= card(p)
		}
		vals := make([]float64, size)
		for row := 0; row < size; row += card(v) {
			s := 0.0
			for j := range card(v) {
				vals[row+j] = 0.05 + r.Float64()
				s += vals[row+j]
			}
			for j := range card(v) {
				vals[row+j] /= s
			}
		}
		b.SetCPT(pos, v, parents, vals, nil)
	}
	for i := range 2 {
		x, _ := b.AddVar(pos, fmt.Sprintf("x%d", i), ir.Real, nil, 0)
		parents := []ir.VarID{net.disc[r.IntN(nd)]}
		if q := net.disc[r.IntN(nd)]; q != parents[0] && r.IntN(2) == 0 {
			parents = append(parents, q)
		}
		n := 1
		for _, p := range parents {
			n *= card(p)
		}
		mean, sd := make([]float64, n), make([]float64, n)
		for u := range n {
			mean[u] = r.NormFloat64() * 3
			sd[u] = 0.5 + r.Float64()*2
		}
		b.SetParents(x, parents)
		b.SetGaussian(pos, x, parents, mean, sd)
		net.reals = append(net.reals, x)
	}
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	net.m = m
	return net
}

// bruteJoint returns, for every assignment of the discrete variables (in
// the odometer order of allAssignments), P(assignment) times the densities
// of the real observations.
func (n realNet) bruteJoint(obs []ir.RealObs) ([][]int, []float64) {
	m := n.m
	var as [][]int
	var ps []float64
	a := make([]int, len(m.Vars))
	var rec func(i int)
	rec = func(i int) {
		if i == len(n.disc) {
			p := 1.0
			for _, v := range n.disc {
				f := m.Factor(v)
				p *= f.Vals[entryOf(f, a)]
			}
			for _, o := range obs {
				g := m.Gaussian(o.Var)
				u := 0
				for _, par := range g.Parents {
					u = u*len(m.Vars[par].States) + a[par]
				}
				z := (o.Value - g.Mean[u]) / g.SD[u]
				p *= math.Exp(-z*z/2) / (g.SD[u] * math.Sqrt(2*math.Pi))
			}
			as = append(as, append([]int(nil), a...))
			ps = append(ps, p)
			return
		}
		v := n.disc[i]
		for s := range m.Vars[v].States {
			a[v] = s
			rec(i + 1)
		}
	}
	rec(0)
	return as, ps
}

// TestRealEvidence: on random networks with real children, P(X | real
// and discrete evidence) and density(x | e) from every engine match the
// joint enumerated with the densities written out.
func TestRealEvidence(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	for trial := range 20 {
		net := newRealNet(t, r)
		m := net.m
		obs := []ir.RealObs{{Var: net.reals[0], Value: r.NormFloat64() * 4}}
		if trial%2 == 0 {
			obs = append(obs, ir.RealObs{Var: net.reals[1], Value: r.NormFloat64() * 4})
		}
		ev := []ir.Obs{}
		if trial%3 == 0 {
			ev = append(ev, ir.Obs{Var: net.disc[0], State: 0})
		}
		target := net.disc[len(net.disc)-1]
		as, ps := net.bruteJoint(obs)
		want := make([]float64, len(m.Vars[target].States))
		total, pe := 0.0, 0.0
		for i, a := range as {
			if len(ev) > 0 && a[ev[0].Var] != ev[0].State {
				continue
			}
			want[a[target]] += ps[i]
			total += ps[i]
		}
		for i := range want {
			want[i] /= total
		}
		// P(e) alone, for the conditional density.
		_, pd := net.bruteJoint(nil)
		for i, a := range as {
			if len(ev) == 0 || a[ev[0].Var] == ev[0].State {
				pe += pd[i]
			}
		}
		for _, eng := range []string{Enum, VE, JT, Auto} {
			q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(target | reals)", Bar: true}, Conditions: ir.Conditions{Evidence: ev, Real: obs}, Targets: []ir.VarID{target}, TargetStates: []int{-1}}
			res, err := Answer(m, q, Options{Engine: eng})
			if err != nil {
				t.Fatalf("trial %d, %v: %v", trial, eng, err)
			}
			for i, row := range res.(*Table).Rows {
				if !equal(row.P, want[i], 1e-12) {
					t.Errorf("trial %d, %v: P(target=%d | e) = %v, want %v", trial, eng, i, row.P, want[i])
				}
			}
			dq := &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(x | e)"}, Conditions: ir.Conditions{Evidence: ev}, Values: obs}
			d, err := Answer(m, dq, Options{Engine: eng})
			if err != nil {
				t.Fatalf("trial %d, %v: density: %v", trial, eng, err)
			}
			if w := total / pe; !relEqual(d.(*Density).Density, w, 1e-10) || !relEqual(d.(*Density).LogDensity, math.Log(w), 1e-10) {
				t.Errorf("trial %d, %v: density %v (log %v), want %v", trial, eng, d.(*Density).Density, d.(*Density).LogDensity, w)
			}
		}
	}
}

// TestRealEvidenceFar: values far from every mean (where the densities
// underflow, or z² overflows) still give a posterior, never NaN: the
// class whose density falls slowest takes it all.
func TestRealEvidenceFar(t *testing.T) {
	b := ir.NewBuilder("far")
	pos := ir.Pos{File: "far", Line: 1, Col: 1}
	c, _ := b.AddVar(pos, "C", ir.Enum, []string{"a", "b"}, 0)
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	b.SetCPT(pos, c, nil, []float64{0.5, 0.5}, nil)
	b.SetParents(x, []ir.VarID{c})
	b.SetGaussian(pos, x, []ir.VarID{c}, []float64{21, 11}, []float64{1, 1})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		x     float64
		wantA float64
	}{
		{1e300, 1}, {-1e300, 0}, {1e154, 1}, {-1.7e308, 0}, {16, 0.5},
	} {
		for _, eng := range []string{Enum, VE, JT} {
			q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(C | x)", Bar: true}, Conditions: ir.Conditions{Real: []ir.RealObs{{Var: x, Value: tc.x}}}, Targets: []ir.VarID{c}, TargetStates: []int{-1}}
			res, err := Answer(m, q, Options{Engine: eng})
			if err != nil {
				t.Fatalf("x = %g, %v: %v", tc.x, eng, err)
			}
			if !equal(res.(*Table).Rows[0].P, tc.wantA, 1e-12) {
				t.Errorf("x = %g, %v: P(C=a | x) = %v, want %v", tc.x, eng, res.(*Table).Rows[0].P, tc.wantA)
			}
		}
		// ln(N(x; 21, 1)/2 + N(x; 11, 1)/2) in big.Float; beyond
		// float64 (x = ±1e300: −5e599), an error of kind ErrRange,
		// not a density of 0.
		top, rest := logSumExp([]*big.Float{bigLogNormal(tc.x, 21, 1), bigLogNormal(tc.x, 11, 1)})
		lw, _ := top.Float64()
		want := lw + rest + math.Log(0.5)
		d, err := Answer(m, &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density(x)"}, Values: []ir.RealObs{{Var: x, Value: tc.x}}}, Options{})
		switch {
		case math.IsInf(lw, -1):
			if !errors.Is(err, ErrRange) {
				t.Errorf("density(x=%g): want an error of kind ErrRange (ln density %v), got %v, %v", tc.x, top, d, err)
			}
		case err != nil:
			t.Errorf("density(x=%g): %v", tc.x, err)
		case !relEqual(d.(*Density).LogDensity, want, 1e-12):
			t.Errorf("density(x=%g) = %v (log %v), want log %v", tc.x, d.(*Density).Density, d.(*Density).LogDensity, want)
		}
	}
}

// TestMultiNormalFar: joint densities at the ends of float64 — values
// whose difference from a mean overflows, covariances with variances of
// 1e-300 and 1e300 — give posteriors and densities, never NaN, from every
// engine.
func TestMultiNormalFar(t *testing.T) {
	b := ir.NewBuilder("far")
	pos := ir.Pos{File: "far", Line: 1, Col: 1}
	c, _ := b.AddVar(pos, "C", ir.Enum, []string{"a", "b"}, 0)
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	y, _ := b.AddVar(pos, "y", ir.Real, nil, 0)
	b.SetCPT(pos, c, nil, []float64{0.5, 0.5}, nil)
	b.SetMultiNormal(&ir.MultiNormal{Pos: pos, Children: []ir.VarID{x, y}, Parents: []ir.VarID{c},
		Mean: [][]float64{{1e308, 0}, {0, 0}}, Cov: [][]float64{{1e-300, 0, 0, 1e300}, {1, 0, 0, 1}}, Form: ir.DiagCov})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, obs := range [][]ir.RealObs{
		{{Var: x, Value: -1e308}, {Var: y, Value: 1e308}},
		{{Var: x, Value: 1e308}, {Var: y, Value: 0}},
		{{Var: y, Value: 1e300}},
		{{Var: x, Value: 3}},
	} {
		for _, eng := range []string{Enum, VE, JT} {
			q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(C | reals)", Bar: true}, Conditions: ir.Conditions{Real: obs}, Targets: []ir.VarID{c}, TargetStates: []int{-1}}
			res, err := Answer(m, q, Options{Engine: eng})
			if err != nil {
				t.Fatalf("%v, %v: %v", obs, eng, err)
			}
			if s := res.(*Table).Rows[0].P + res.(*Table).Rows[1].P; !(math.Abs(s-1) < 1e-12) {
				t.Errorf("%v, %v: P(C | x) = %v, %v", obs, eng, res.(*Table).Rows[0].P, res.(*Table).Rows[1].P)
			}
		}
		// A density whose logarithm underflows float64 is an error of
		// kind ErrRange, not 0.
		d, err := Answer(m, &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density"}, Values: obs}, Options{})
		if !errors.Is(err, ErrRange) && (err != nil || math.IsNaN(d.(*Density).Density) || math.IsInf(d.(*Density).LogDensity, 0) || math.IsNaN(d.(*Density).LogDensity)) {
			t.Errorf("%v: density %v (log %v), %v", obs, d.(*Density).Density, d.(*Density).LogDensity, err)
		}
	}
}

// TestMultiNormalFarDigits: far from the means (x = 1e17, where x − 1 and
// x − 0 are the same float64), a joint density still tells components
// apart by their means, as a univariate one does: the log densities differ
// by about x·Δμ, and the values along which the means agree (y = 1e9 with
// x between the means) leave the posterior of the near digits. It was 0.5
// for both, the means' digits lost in (x − μ)ᵀΣ⁻¹(x − μ).
func TestMultiNormalFarDigits(t *testing.T) {
	b := ir.NewBuilder("far")
	pos := ir.Pos{File: "far", Line: 1, Col: 1}
	c, _ := b.AddVar(pos, "C", ir.Enum, []string{"a", "b"}, 0)
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	y, _ := b.AddVar(pos, "y", ir.Real, nil, 0)
	b.SetCPT(pos, c, nil, []float64{0.5, 0.5}, nil)
	cov := []float64{1, 0.5, 0.5, 2}
	b.SetMultiNormal(&ir.MultiNormal{Pos: pos, Children: []ir.VarID{x, y}, Parents: []ir.VarID{c},
		Mean: [][]float64{{0, 0}, {1, 0}}, Cov: [][]float64{cov, cov}, Form: ir.TiedCov})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// P(C=a | x, y) = 1/(1 + e^(l_b − l_a)), l_b − l_a = δᵀΣ⁻¹(v − (μ_a+μ_b)/2)
	// with δ = μ_b − μ_a = (1, 0): Σ⁻¹ = [[2, −0.5], [−0.5, 1]]/1.75.
	pa := func(vx, vy float64) float64 {
		return 1 / (1 + math.Exp((2*(vx-0.5)-0.5*vy)/1.75))
	}
	for _, tc := range []struct {
		obs   []ir.RealObs
		wantA float64
	}{
		{[]ir.RealObs{{Var: x, Value: 1e17}}, 0},
		{[]ir.RealObs{{Var: x, Value: 1e17}, {Var: y, Value: 0}}, 0},
		{[]ir.RealObs{{Var: x, Value: -1e17}, {Var: y, Value: 0}}, 1},
		{[]ir.RealObs{{Var: x, Value: 0.5 + 1e8/4}, {Var: y, Value: 1e8}}, pa(0.5+1e8/4, 1e8)},
		{[]ir.RealObs{{Var: x, Value: 0.7 + 1e9/4}, {Var: y, Value: 1e9}}, pa(0.7, 0)},
		{[]ir.RealObs{{Var: x, Value: -1.7e308}, {Var: y, Value: 1.7e308}}, 1},
	} {
		for _, eng := range []string{Enum, VE, JT} {
			q := &ir.ProbQuery{QueryHeader: ir.QueryHeader{Text: "P(C | reals)", Bar: true}, Conditions: ir.Conditions{Real: tc.obs}, Targets: []ir.VarID{c}, TargetStates: []int{-1}}
			res, err := Answer(m, q, Options{Engine: eng})
			if err != nil {
				t.Fatalf("%v, %v: %v", tc.obs, eng, err)
			}
			if !(math.Abs(res.(*Table).Rows[0].P-tc.wantA) < 1e-6) {
				t.Errorf("%v, %v: P(C=a | reals) = %v, want %v", tc.obs, eng, res.(*Table).Rows[0].P, tc.wantA)
			}
		}
	}
}

// TestMultiNormalHugeVariance: with a variance of 1.7e308, x = 1e160 is
// 7.7e5 standard deviations out; its log density, −ln 2π − ln v − x²/2v
// (≈ −2.94e11), is finite though x² overflows.
func TestMultiNormalHugeVariance(t *testing.T) {
	b := ir.NewBuilder("huge")
	pos := ir.Pos{File: "huge", Line: 1, Col: 1}
	c, _ := b.AddVar(pos, "C", ir.Enum, []string{"a"}, 0)
	x, _ := b.AddVar(pos, "x", ir.Real, nil, 0)
	y, _ := b.AddVar(pos, "y", ir.Real, nil, 0)
	b.SetCPT(pos, c, nil, []float64{1}, nil)
	const v = 1.7e308
	b.SetMultiNormal(&ir.MultiNormal{Pos: pos, Children: []ir.VarID{x, y}, Parents: []ir.VarID{c},
		Mean: [][]float64{{0, 0}}, Cov: [][]float64{{v, 0, 0, v}}, Form: ir.SphericalCov})
	m, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Answer(m, &ir.DensityQuery{QueryHeader: ir.QueryHeader{Text: "density"}, Values: []ir.RealObs{{Var: x, Value: 1e160}, {Var: y, Value: 0}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	z := 1e160 / math.Sqrt(v)
	want := -math.Log(2*math.Pi) - math.Log(v) - 0.5*z*z
	if !relEqual(d.(*Density).LogDensity, want, 1e-12) {
		t.Errorf("log density %v, want %v", d.(*Density).LogDensity, want)
	}
}
