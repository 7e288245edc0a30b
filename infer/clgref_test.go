package infer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the independent reference for the CLG engine (clg.go,
// clgnormal.go), written apart from it in covariance form rather than
// the engine's precision form: for each assignment of every discrete
// variable, the real variables' joint normal by the textbook recursion
// μ = (I−W)⁻¹b, Σ = (I−W)⁻¹ D (I−W)⁻ᵀ (W the coefficients, D the
// variances; do(X=v) makes X's row of W zero, b_X = v and D_XX = 0),
// conditioned on the real observations by the Schur complement (LU
// solves), weighed by the assignment's probability from the tables.

// clgTestNet is a random CLG network: discrete variables with tables, and
// real ones with linear Gaussian densities.
type clgTestNet struct {
	m     *ir.Model
	disc  []ir.VarID
	reals []ir.VarID // in topological order
}

// randomCLG builds a network of nd discrete and nr real variables: each
// real variable has up to maxReal real parents among the earlier ones
// and up to maxDisc discrete parents, and intercepts about offset.
func randomCLG(r *rand.Rand, nd, nr, maxReal, maxDisc int, offset float64) (clgTestNet, error) {
	b := ir.NewBuilder("clg.pbl")
	pos := ir.Pos{File: "clg.pbl", Line: 1, Col: 1}
	var net clgTestNet
	card := map[ir.VarID]int{}
	for i := range nd {
		k := 2 + r.IntN(2)
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprintf("s%d", s)
		}
		v, _ := b.AddVar(pos, fmt.Sprintf("d%d", i), ir.Enum, states, 0)
		card[v] = k
		var parents []ir.VarID
		if i > 0 && r.IntN(2) == 0 {
			parents = append(parents, net.disc[r.IntN(i)])
		}
		size := k
		for _, p := range parents {
			size *= card[p]
		}
		vals := make([]float64, size)
		for row := 0; row < size; row += k {
			sum := 0.0
			for j := range k {
				vals[row+j] = 0.1 + r.Float64()
				sum += vals[row+j]
			}
			for j := range k {
				vals[row+j] /= sum
			}
		}
		b.SetCPT(pos, v, parents, vals, nil)
		net.disc = append(net.disc, v)
	}
	type lg struct {
		child     ir.VarID
		disc, rpa []ir.VarID
		mean, sd  []float64
		coef      []float64
	}
	var gs []lg
	for i := range nr {
		x, _ := b.AddVar(pos, fmt.Sprintf("x%d", i), ir.Real, nil, 0)
		g := lg{child: x}
		for range r.IntN(maxDisc + 1) {
			p := net.disc[r.IntN(nd)]
			if !containsVar(g.disc, p) {
				g.disc = append(g.disc, p)
			}
		}
		for range r.IntN(maxReal + 1) {
			if i == 0 {
				break
			}
			p := net.reals[r.IntN(i)]
			if !containsVar(g.rpa, p) {
				g.rpa = append(g.rpa, p)
			}
		}
		n := 1
		for _, p := range g.disc {
			n *= card[p]
		}
		for range n {
			g.mean = append(g.mean, offset+r.NormFloat64()*(3+offset/5))
			g.sd = append(g.sd, 0.5+r.Float64()*1.5)
			for range g.rpa {
				g.coef = append(g.coef, (r.Float64()*2-1)*0.9)
			}
		}
		b.SetGaussian(pos, x, g.disc, g.mean, g.sd)
		gs = append(gs, g)
		net.reals = append(net.reals, x)
	}
	// The real parents, which the syntax of this branch cannot write.
	m := b.Model()
	for _, g := range gs {
		d := m.Dists[g.child].(*ir.Gaussian)
		if len(g.rpa) > 0 {
			d.Real, d.Coef = g.rpa, g.coef
		}
		m.Parents[g.child] = append(append([]ir.VarID(nil), g.disc...), g.rpa...)
	}
	mod, err := b.Finish()
	net.m = mod
	return net, err
}

func containsVar(vs []ir.VarID, v ir.VarID) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// refConfig is the reference's answer for one assignment of the discrete
// variables.
type refConfig struct {
	assign []int     // the state of every discrete variable (by VarID)
	logW   float64   // ln P(assignment, discrete evidence) + ln N(observed)
	mean   []float64 // the targets' conditional mean
	cov    *mat.Dense
}

// reference computes, for every assignment of the discrete variables that
// agrees with ev, its weight and the targets' conditional normal given
// the real observations obs and the values set by doReal.
func (n clgTestNet) reference(ev []ir.Obs, obs, doReal []ir.RealObs, targets []ir.VarID) []refConfig {
	m := n.m
	nr := len(n.reals)
	at := map[ir.VarID]int{}
	for i, v := range n.reals {
		at[v] = i
	}
	var out []refConfig
	a := make([]int, len(m.Vars))
	var rec func(i int)
	rec = func(i int) {
		if i < len(n.disc) {
			v := n.disc[i]
			for s := range m.Vars[v].States {
				ok := true
				for _, o := range ev {
					if o.Var == v && o.State != s {
						ok = false
					}
				}
				if ok {
					a[v] = s
					rec(i + 1)
				}
			}
			return
		}
		logP := 0.0
		for _, v := range n.disc {
			c := m.CPT(v)
			idx := 0
			for k, x := range c.Factor.Vars {
				idx += a[x] * c.Factor.Stride[k]
			}
			logP += math.Log(c.Factor.Vals[idx])
		}
		// W, b, D.
		IW := mat.NewDense(nr, nr, nil)
		bv := mat.NewVecDense(nr, nil)
		D := mat.NewDense(nr, nr, nil)
		for i, x := range n.reals {
			IW.Set(i, i, 1)
			set := false
			for _, o := range doReal {
				if o.Var == x {
					bv.SetVec(i, o.Value)
					set = true
				}
			}
			if set {
				continue
			}
			g := m.Gaussian(x)
			u := 0
			for _, p := range g.Parents {
				u = u*len(m.Vars[p].States) + a[p]
			}
			bv.SetVec(i, g.Mean[u])
			D.Set(i, i, g.SD[u]*g.SD[u])
			for j, p := range g.Real {
				IW.Set(i, at[p], -g.Coef[u*len(g.Real)+j])
			}
		}
		var inv mat.Dense
		if err := inv.Inverse(IW); err != nil {
			panic(err)
		}
		var mu mat.VecDense
		mu.MulVec(&inv, bv)
		var s1, sigma mat.Dense
		s1.Mul(&inv, D)
		sigma.Mul(&s1, inv.T())
		no, nt := len(obs), len(targets)
		rc := refConfig{assign: append([]int(nil), a...), logW: logP}
		muT := make([]float64, nt)
		sTT := mat.NewDense(max(nt, 1), max(nt, 1), nil)
		for p, x := range targets {
			muT[p] = mu.AtVec(at[x])
			for q, y := range targets {
				sTT.Set(p, q, sigma.At(at[x], at[y]))
			}
		}
		if no == 0 {
			rc.mean, rc.cov = muT, sTT
			out = append(out, rc)
			return
		}
		sOO := mat.NewDense(no, no, nil)
		r := mat.NewVecDense(no, nil)
		for p, o := range obs {
			r.SetVec(p, o.Value-mu.AtVec(at[o.Var]))
			for q, o2 := range obs {
				sOO.Set(p, q, sigma.At(at[o.Var], at[o2.Var]))
			}
		}
		var alpha mat.VecDense // Σ_OO⁻¹ r
		if err := alpha.SolveVec(sOO, r); err != nil {
			panic(err)
		}
		var lu mat.LU
		lu.Factorize(sOO)
		logDet, _ := lu.LogDet()
		rc.logW += -0.5 * (float64(no)*math.Log(2*math.Pi) + logDet + mat.Dot(r, &alpha))
		if nt > 0 {
			sTO := mat.NewDense(nt, no, nil)
			for p, x := range targets {
				for q, o := range obs {
					sTO.Set(p, q, sigma.At(at[x], at[o.Var]))
				}
			}
			for p := range nt {
				muT[p] += mat.Dot(sTO.RowView(p), &alpha)
			}
			var X mat.Dense // Σ_OO⁻¹ Σ_OT
			if err := X.Solve(sOO, sTO.T()); err != nil {
				panic(err)
			}
			var corr mat.Dense
			corr.Mul(sTO, &X)
			sTT.Sub(sTT, &corr)
		}
		rc.mean, rc.cov = muT, sTT
		out = append(out, rc)
	}
	rec(0)
	return out
}

// refLogSumExp returns ln Σ e^x.
func refLogSumExp(xs []float64) float64 {
	top := math.Inf(-1)
	for _, x := range xs {
		top = max(top, x)
	}
	if math.IsInf(top, -1) {
		return top
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - top)
	}
	return top + math.Log(s)
}
