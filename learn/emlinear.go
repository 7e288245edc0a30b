package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the part of network EM (density.go) that learns linear
// Gaussian densities: a real child y whose mean is linear in real parents
// x, per configuration u of discrete parents that may be hidden or
// missing in a row.
//
// Given a row's real values, the density's likelihood over u is
// N(y; a_u + b_uᵀx, σ_u²), a likelihood potential over the discrete
// parents like that of a normal density given discrete parents, so the
// E-step's posterior P(u | row) is exact. The M-step is weighted least
// squares per configuration, with the statistics
//
//	M_u = Σ_r P(u | r) z_r z_rᵀ,   z = (1, x − c_x, y − c_y)
//
// (c fixed for the iteration from the current model: each variable's first
// mean, so that the moments do not lose digits to large means): β = M_aa⁻¹ M_ay over a =
// (1, x) by Cholesky (gonum), σ² = (M_yy − βᵀ M_ay) / W_u plus
// DefaultRegCovar, as a normal density's variance gets; the intercept is
// c_y + β_0 − Σ_j β_j c_xj. A configuration of zero weight keeps its
// numbers.
//
// A row without the child adds nothing to the density (integrated out,
// exact) unless a descendant of the child is observed. A row that gives
// the child but not one of its real parents is treated jointly with the
// real variables the linear densities join to it (emmissing.go).

// lin reports whether d is a linear Gaussian density.
func (d *density) lin() bool { return len(d.real) > 0 }

// linDim returns the length of z, 1 + the real parents + the child.
func (d *density) linDim() int { return len(d.real) + 2 }

// scratch returns the length of the buffer d needs per row.
func (d *density) scratch() int {
	if d.lin() {
		return d.linDim() + d.nconf
	}
	return 2 * d.dim()
}

// setLinear splits d's parents into discrete and real ones and finds the
// real parents' columns among reals.
func (d *density) setLinear(m *ir.Model, reals []ir.VarID) error {
	if d.joint {
		return nil
	}
	if d.real == nil {
		var disc, real []ir.VarID
		for _, p := range d.parents {
			if m.Discrete(p) {
				disc = append(disc, p)
			} else {
				real = append(real, p)
			}
		}
		d.parents, d.real = disc, real
	}
	d.rcol, d.realNames = nil, nil
	for _, p := range d.real {
		c := slices.Index(reals, p)
		if c < 0 {
			return modelErrorf("cannot learn the density of %s by EM: its real parent %s has neither a density nor parents, so no column of the data is read for it", m.NameList(d.children, 3), ir.Quote(m.Vars[p].Name))
		}
		d.rcol = append(d.rcol, c)
		d.realNames = append(d.realNames, ir.Quote(m.Vars[p].Name))
	}
	d.childName = ir.Quote(m.Vars[d.children[0]].Name)
	return nil
}

// setCentre sets the centres c of d's statistics from the model of the
// iteration, m: each variable's first mean (its intercept, for a linear
// density) where it has a normal density, else 0. They depend on the
// parameters only, not on the rows, so that statistics of shards of the
// data computed apart merge.
func (d *density) setCentre(m *ir.Model) {
	d.centre = resize(d.centre, len(d.real)+1)
	for j, v := range append(slices.Clone(d.real), d.children[0]) {
		d.centre[j] = 0
		if g, ok := m.Dist(v).(*ir.Gaussian); ok && len(g.Mean) > 0 {
			d.centre[j] = g.Mean[0]
		}
	}
}

// centreOf returns the centre of z's entry j ≥ 1.
func (d *density) centreOf(j int) float64 {
	if d.centre == nil {
		return 0
	}
	return d.centre[j-1]
}

// linLogDensities is logDensities for a linear Gaussian density.
func (d *density) linLogDensities(x []float64, dst, buf []float64) (float64, bool, error) {
	y := x[d.col[0]]
	if math.IsNaN(y) {
		return 0, false, nil
	}
	k := len(d.real)
	mu := buf[:d.nconf]
	for u := range d.nconf {
		mu[u] = d.mean[u]
	}
	for j, c := range d.rcol {
		xv := x[c]
		if math.IsNaN(xv) {
			// Unreachable: such a row is treated jointly (emmissing.go).
			return 0, false, fmt.Errorf("%s is given but its real parent %s is missing", d.childName, d.realNames[j])
		}
		for u := range d.nconf {
			mu[u] += d.coef[u*k+j] * xv
		}
	}
	return ir.NormalLogDensities(y, mu, d.sd, d.base, dst), true, nil
}

// linAddStats is addStats for a linear Gaussian density.
func (d *density) linAddStats(st []float64, x []float64, post []float64, w float64, buf []float64) {
	D := d.linDim()
	z := buf[:D]
	z[0] = 1
	for j, c := range d.rcol {
		z[1+j] = x[c] - d.centreOf(1+j)
	}
	z[D-1] = x[d.col[0]] - d.centreOf(D-1)
	for u, p := range post {
		p *= w
		if p == 0 {
			continue
		}
		s := st[u*d.ncells : (u+1)*d.ncells]
		for i := range D {
			pi := p * z[i]
			for j := i; j < D; j++ {
				s[i*D+j] += pi * z[j]
			}
		}
	}
}

// linEstimate is estimate for a linear Gaussian density.
func (d *density) linEstimate(m *ir.Model, st []float64) (ir.Dist, error) {
	k := len(d.real)
	D := d.linDim()
	old := d.cur.(*ir.Gaussian)
	g := &ir.Gaussian{Pos: d.pos, Child: d.children[0], Parents: slices.Clone(d.parents), Real: slices.Clone(d.real),
		Mean: make([]float64, d.nconf), SD: make([]float64, d.nconf), Coef: make([]float64, d.nconf*k)}
	a := mat.NewSymDense(k+1, nil)
	b := mat.NewVecDense(k+1, nil)
	var beta mat.VecDense
	var ch mat.Cholesky
	for u := range d.nconf {
		s := st[u*d.ncells : (u+1)*d.ncells]
		W := s[0]
		if !(W > 0) {
			g.Mean[u], g.SD[u] = old.Mean[u], old.SD[u]
			copy(g.Coef[u*k:(u+1)*k], old.Coef[u*k:(u+1)*k])
			continue
		}
		for i := range k + 1 {
			for j := i; j < k+1; j++ {
				a.SetSym(i, j, s[i*D+j])
			}
			b.SetVec(i, s[i*D+D-1])
		}
		if !ch.Factorize(a) || ch.SolveVecTo(&beta, b) != nil {
			return nil, fmt.Errorf("cannot learn the density of %s by EM%s: its real parents %s are collinear in the rows that weigh on it (a linear Gaussian density needs rows that span them)",
				d.childName, configName(m, d.parents, u), m.NameList(d.real, 5))
		}
		rss := s[(D-1)*D+D-1]
		icpt := d.centreOf(D-1) + beta.AtVec(0)
		for i := range k + 1 {
			rss -= beta.AtVec(i) * s[i*D+D-1]
		}
		for j := range k {
			c := beta.AtVec(1 + j)
			g.Coef[u*k+j] = c
			icpt -= c * d.centreOf(1+j)
		}
		v := max(rss, 0)/W + DefaultRegCovar
		g.Mean[u], g.SD[u] = icpt, math.Sqrt(v)
		if bad := math.IsInf(icpt, 0) || math.IsNaN(icpt) || math.IsInf(v, 0) || math.IsNaN(v) ||
			slices.ContainsFunc(g.Coef[u*k:(u+1)*k], func(x float64) bool { return math.IsInf(x, 0) || math.IsNaN(x) }); bad {
			return nil, fmt.Errorf("cannot learn the density of %s: its values%s are too large for the least squares to be computed (beyond about 1e154); rescale the columns",
				d.childName, configName(m, d.parents, u))
		}
	}
	return g, nil
}

// linStart returns the starting density of a linear Gaussian density for
// start r: per configuration, the intercept a value of the child drawn at
// random, the coefficients 0, the variance the child's variance.
func (d *density) linStart(m *ir.Model, rr *realRows, nreal int, seed uint64, r int) (ir.Dist, error) {
	var given []float64
	mu, vr := 0.0, 0.0
	for i := range rr.n() {
		v := rr.vals[i*nreal+d.col[0]]
		if math.IsNaN(v) {
			continue
		}
		given = append(given, v)
		dv := v - mu
		mu += dv / float64(len(given))
		vr += dv * (v - mu)
	}
	if len(given) == 0 {
		return nil, fmt.Errorf("no row of the data gives %s a value: its density cannot be learned", d.childName)
	}
	sd := math.Sqrt(vr/float64(len(given)) + DefaultRegCovar)
	rng := rand.New(rand.NewPCG(seed^0x6c696e6561720000, uint64(r)))
	k := len(d.real)
	g := &ir.Gaussian{Pos: d.pos, Child: d.children[0], Parents: slices.Clone(d.parents), Real: slices.Clone(d.real),
		Mean: make([]float64, d.nconf), SD: make([]float64, d.nconf), Coef: make([]float64, d.nconf*k)}
	for u := range d.nconf {
		g.Mean[u], g.SD[u] = given[rng.IntN(len(given))], sd
	}
	return g, nil
}
