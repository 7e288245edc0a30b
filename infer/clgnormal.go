package infer

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// This file is the real-valued half of exact inference on conditional
// linear Gaussian (CLG) models (clg.go is the other): given one
// configuration of the discrete parents of the real variables in play,
// those variables are jointly normal, and clgNet.solve conditions that
// normal on the real evidence in canonical (information) form.
//
// Each density in play contributes a quadratic in the unobserved real
// variables x: a linear Gaussian X = b + a·pa(X) + e, e ~ N(0, σ²), the
// term −½ r²/σ² − ½ ln 2πσ², where r = X − a·pa(X) − b is affine in x once
// the observed values and those set by do(...) are put in; a joint normal
// density (ir.MultiNormal) of children B, −½ (x_B − μ)ᵀ S⁻¹ (x_B − μ) −
// ½ ln |2πS|. Their sum is −½ xᵀKx + hᵀx + c, and then, with n the number
// of unobserved variables,
//
//	ln p(observed | configuration) = c + (n/2) ln 2π − ½ ln |K| + ½ hᵀK⁻¹h
//	x | observed, configuration ~ N(K⁻¹h, K⁻¹)
//
// from one Cholesky factorisation of K (gonum), which is positive definite
// since each unobserved variable in play has a density of its own. The
// variables in play are those observed and asked for and their real
// ancestors through real parents (do(X=x) cuts X from its parents); the
// others are barren and integrate to 1.

// clgNet is the real part of a query: the densities in play, their
// unobserved variables (the canonical form's coordinates), the values of
// the observed and set ones, and the discrete parents of the densities.
type clgNet struct {
	m       *ir.Model
	dists   []ir.Dist  // the densities in play, each once
	free    []ir.VarID // the unobserved real variables in play, in VarID order
	at      []int      // at[v]: v's index in free, or -1
	fixed   []bool     // fixed[v]: v is observed or set by do(...)
	val     []float64  // val[v]: the value of a fixed v
	disc    []ir.VarID // the discrete parents of the densities in play, in VarID order
	targets []int      // the targets' indices in free
	topo    []int      // the indices in free, parents before children (solve's first call sets it)

	// solve's scratch, kept from one configuration to the next.
	kbuf, hbuf, mubuf []float64
	idx               []int
	g                 []float64
	chol              mat.Cholesky
}

// newCLGNet returns the real part of a query on m: the real observations
// obs, the values set by do(...) doReal and the real variables asked for.
func newCLGNet(m *ir.Model, pos ir.Pos, obs, doReal []ir.RealObs, targets []ir.VarID) (*clgNet, error) {
	n := len(m.Vars)
	c := &clgNet{m: m, at: make([]int, n), fixed: make([]bool, n), val: make([]float64, n)}
	set := make([]bool, n)
	for _, o := range doReal {
		if d := m.MultiNormal(o.Var); d != nil {
			return nil, ir.Errorf(pos, "do(%s=...): %s is a child of a joint normal density, which do(...) cannot cut in two", ir.Quote(m.Vars[o.Var].Name), ir.Quote(m.Vars[o.Var].Name))
		}
		c.fixed[o.Var], c.val[o.Var], set[o.Var] = true, o.Value, true
	}
	need := make([]bool, n)
	var work []ir.VarID
	mark := func(v ir.VarID) {
		if !need[v] {
			need[v] = true
			work = append(work, v)
		}
	}
	for _, o := range obs {
		if set[o.Var] {
			if o.Value != c.val[o.Var] {
				return nil, ir.Errorf(pos, "%s is set to %s by do(...) and observed as %s", ir.Quote(m.Vars[o.Var].Name), ir.FormatFloat(c.val[o.Var]), ir.FormatFloat(o.Value))
			}
			continue // observing the value it is set to: harmless
		}
		if m.Dist(o.Var) == nil {
			return nil, ir.Errorf(pos, "%s is real-valued and has no density: only a variable with a normal density (P(X | ...) = normal(MEAN, SD), or a joint one) can be observed", ir.Quote(m.Vars[o.Var].Name))
		}
		c.fixed[o.Var], c.val[o.Var] = true, o.Value
		mark(o.Var)
	}
	for _, v := range targets {
		if c.fixed[v] {
			return nil, ir.Errorf(pos, "%s is asked for and given a value", ir.Quote(m.Vars[v].Name))
		}
		mark(v)
	}
	// The ancestors through real parents, and a joint density's other
	// children.
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if set[v] {
			continue // cut from its parents
		}
		switch d := m.Dist(v).(type) {
		case *ir.Gaussian:
			for _, p := range d.Real {
				mark(p)
			}
		case *ir.MultiNormal:
			for _, x := range d.Children {
				mark(x)
			}
		case nil:
			return nil, &ir.Error{Pos: pos, Err: ir.ErrNoDistribution, Msg: fmt.Sprintf(
				"%s is real-valued and has no density yet: give it one, P(%s | ...) = normal(MEAN, SD), or learn it", ir.Quote(m.Vars[v].Name), ir.Quote(m.Vars[v].Name))}
		}
	}
	seen := map[ir.Dist]bool{}
	for v := range n {
		c.at[v] = -1
		if !need[v] || set[v] {
			continue
		}
		if !c.fixed[v] {
			c.at[v] = len(c.free)
			c.free = append(c.free, ir.VarID(v))
		}
		d := m.Dist(ir.VarID(v))
		if seen[d] {
			continue
		}
		seen[d] = true
		c.dists = append(c.dists, d)
		c.disc = append(c.disc, densityParents(d)...)
	}
	slices.Sort(c.disc)
	c.disc = slices.Compact(c.disc)
	for _, v := range targets {
		c.targets = append(c.targets, c.at[v])
	}
	return c, nil
}

// clgSolution is the normal of the real variables in play given one
// configuration of their discrete parents and the real evidence.
type clgSolution struct {
	logL float64   // ln of the density of the observed values
	mean []float64 // the targets' posterior mean
	cov  []float64 // their covariance, row-major
}

// solve conditions the joint normal of the variables in play, in the
// configuration st of the discrete variables (st[v] for every v of disc;
// other entries unread), on the real evidence.
func (c *clgNet) solve(pos ir.Pos, st []int) (clgSolution, error) {
	n := len(c.free)
	if c.kbuf == nil {
		c.kbuf, c.hbuf = make([]float64, n*n), make([]float64, n)
	}
	K, h := c.kbuf, c.hbuf
	clear(K)
	clear(h)
	c0 := 0.0
	// The unobserved variables are centred on their means given the
	// fixed ones, mu, so that the quadratic's terms are of the size of
	// the evidence's surprise rather than of the means' squares.
	mu := c.means(st)
	idx, g := c.idx[:0], c.g[:0]
	defer func() { c.idx, c.g = idx, g }()
	for _, d := range c.dists {
		u := configOf(c.m, densityParents(d), st)
		switch d := d.(type) {
		case *ir.Gaussian:
			// r = X − a·pa − b = gᵀx + k.
			idx, g = idx[:0], g[:0]
			k := -d.Mean[u]
			if c.fixed[d.Child] {
				k += c.val[d.Child]
			} else {
				idx, g = append(idx, c.at[d.Child]), append(g, 1)
			}
			for j, p := range d.Real {
				a := d.Coef[u*len(d.Real)+j]
				if c.fixed[p] {
					k -= a * c.val[p]
				} else {
					idx, g = append(idx, c.at[p]), append(g, -a)
				}
			}
			for i, p := range idx {
				k += g[i] * mu[p] // 0 to rounding when the child is unobserved
			}
			s2 := d.SD[u] * d.SD[u]
			for i, p := range idx {
				for j, q := range idx {
					K[p*n+q] += g[i] * g[j] / s2
				}
				h[p] -= k * g[i] / s2
			}
			c0 += -0.5*k*k/s2 - 0.5*math.Log(2*math.Pi) - math.Log(d.SD[u])
		case *ir.MultiNormal:
			dim := len(d.Children)
			var ch mat.Cholesky
			if !ch.Factorize(mat.NewSymDense(dim, slices.Clone(d.Cov[u]))) {
				return clgSolution{}, ir.Errorf(pos, "the covariance of %s is not positive definite", c.m.NameList(d.Children, 4))
			}
			var inv mat.SymDense
			if err := ch.InverseTo(&inv); err != nil {
				return clgSolution{}, ir.Errorf(pos, "the covariance of %s: %v", c.m.NameList(d.Children, 4), err)
			}
			k := make([]float64, dim)
			for i, x := range d.Children {
				if c.fixed[x] {
					k[i] = c.val[x] - d.Mean[u][i]
				} else {
					k[i] = mu[c.at[x]] - d.Mean[u][i] // 0
				}
			}
			sk := make([]float64, dim)
			quad := 0.0
			for i := range dim {
				for j := range dim {
					sk[i] += inv.At(i, j) * k[j]
				}
				quad += k[i] * sk[i]
			}
			for i, x := range d.Children {
				if c.fixed[x] {
					continue
				}
				p := c.at[x]
				h[p] -= sk[i]
				for j, y := range d.Children {
					if !c.fixed[y] {
						K[p*n+c.at[y]] += inv.At(i, j)
					}
				}
			}
			c0 += -0.5*quad - 0.5*float64(dim)*math.Log(2*math.Pi) - 0.5*ch.LogDet()
		}
	}
	if n == 0 {
		return clgSolution{logL: c0}, nil
	}
	ch := &c.chol
	if !ch.Factorize(mat.NewSymDense(n, K)) {
		return clgSolution{}, &ir.Error{Pos: pos, Err: ErrRange, Msg: fmt.Sprintf(
			"the real variables %s: their joint normal's precision matrix is not positive definite in float64 (standard deviations too far apart?)", c.m.NameList(c.free, 4))}
	}
	var delta mat.VecDense
	if err := ch.SolveVecTo(&delta, mat.NewVecDense(n, h)); err != nil {
		return clgSolution{}, &ir.Error{Pos: pos, Err: ErrRange, Msg: fmt.Sprintf("the real variables %s: %v", c.m.NameList(c.free, 4), err)}
	}
	hmu := 0.0
	for i := range n {
		hmu += h[i] * delta.AtVec(i)
	}
	s := clgSolution{logL: c0 + 0.5*float64(n)*math.Log(2*math.Pi) - 0.5*ch.LogDet() + 0.5*hmu}
	if t := len(c.targets); t > 0 {
		e := mat.NewDense(n, t, nil)
		for j, i := range c.targets {
			e.Set(i, j, 1)
		}
		var x mat.Dense
		if err := ch.SolveTo(&x, e); err != nil {
			return clgSolution{}, &ir.Error{Pos: pos, Err: ErrRange, Msg: fmt.Sprintf("the real variables %s: %v", c.m.NameList(c.free, 4), err)}
		}
		s.mean = make([]float64, t)
		s.cov = make([]float64, t*t)
		for a, i := range c.targets {
			s.mean[a] = mu[i] + delta.AtVec(i)
			for b, j := range c.targets {
				s.cov[a*t+b] = 0.5 * (x.At(i, b) + x.At(j, a)) // symmetric to the last digit
			}
		}
	}
	return s, nil
}

// means returns the means of the unobserved variables given the fixed
// ones, in the configuration st: a linear Gaussian's intercept plus its
// coefficients times its parents' values or means, a joint density's
// mean.
func (c *clgNet) means(st []int) []float64 {
	if c.topo == nil {
		c.topo = c.order()
		c.mubuf = make([]float64, len(c.free))
	}
	mu := c.mubuf
	for _, i := range c.topo {
		v := c.free[i]
		switch d := c.m.Dist(v).(type) {
		case *ir.Gaussian:
			u := configOf(c.m, d.Parents, st)
			x := d.Mean[u]
			for j, p := range d.Real {
				a := d.Coef[u*len(d.Real)+j]
				if c.fixed[p] {
					x += a * c.val[p]
				} else {
					x += a * mu[c.at[p]]
				}
			}
			mu[i] = x
		case *ir.MultiNormal:
			mu[i] = d.Mean[configOf(c.m, d.Parents, st)][slices.Index(d.Children, v)]
		}
	}
	return mu
}

// order returns the indices in c.free with every unobserved real parent
// before its children.
func (c *clgNet) order() []int {
	out := make([]int, 0, len(c.free))
	done := make([]bool, len(c.free))
	var visit func(i int)
	visit = func(i int) {
		if done[i] {
			return
		}
		done[i] = true
		if g, ok := c.m.Dist(c.free[i]).(*ir.Gaussian); ok {
			for _, p := range g.Real {
				if j := c.at[p]; j >= 0 {
					visit(j)
				}
			}
		}
		out = append(out, i)
	}
	for i := range c.free {
		visit(i)
	}
	return out
}

// configOf returns the index (row-major) of the configuration of parents
// in st (st[v] the state of v).
func configOf(m *ir.Model, parents []ir.VarID, st []int) int {
	u := 0
	for _, p := range parents {
		u = u*len(m.Vars[p].States) + st[p]
	}
	return u
}

// split returns the independent parts of c: given a configuration, the
// density of the observed values is the product of the integrals over
// the groups of unobserved variables that share no density (each with
// the densities of those variables; a density of observed variables only
// is a part by itself), so each part has a likelihood over its own
// discrete parents, and the configurations enumerated are each part's,
// not those of every discrete parent at once. The parts of the targets
// are one part, listed first.
func (c *clgNet) split() []*clgNet {
	n := len(c.free)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(i int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	frees := make([][]int, len(c.dists)) // each density's unobserved variables
	for k, d := range c.dists {
		for _, v := range densityVars(d) {
			if i := c.at[v]; i >= 0 {
				frees[k] = append(frees[k], i)
			}
		}
		for _, i := range frees[k][min(1, len(frees[k])):] {
			union(frees[k][0], i)
		}
	}
	for _, i := range c.targets[min(1, len(c.targets)):] {
		union(c.targets[0], i)
	}
	// A part per root, and one per density with no unobserved variable.
	part := map[int]*clgNet{}
	var parts []*clgNet
	newPart := func() *clgNet {
		p := &clgNet{m: c.m, at: make([]int, len(c.at)), fixed: c.fixed, val: c.val}
		for v := range p.at {
			p.at[v] = -1
		}
		return p
	}
	if len(c.targets) > 0 {
		p := newPart()
		part[find(c.targets[0])] = p
		parts = append(parts, p)
	}
	for i, v := range c.free {
		r := find(i)
		p := part[r]
		if p == nil {
			p = newPart()
			part[r] = p
			parts = append(parts, p)
		}
		p.at[v] = len(p.free)
		p.free = append(p.free, v)
	}
	for k, d := range c.dists {
		var p *clgNet
		if len(frees[k]) == 0 {
			p = newPart()
			parts = append(parts, p)
		} else {
			p = part[find(frees[k][0])]
		}
		p.dists = append(p.dists, d)
		p.disc = append(p.disc, densityParents(d)...)
	}
	for _, p := range parts {
		slices.Sort(p.disc)
		p.disc = slices.Compact(p.disc)
	}
	if len(c.targets) > 0 {
		p := parts[0]
		for _, i := range c.targets {
			p.targets = append(p.targets, p.at[c.free[i]])
		}
	}
	return parts
}

// densityVars returns the variables a density is over: its child and
// real parents, or a joint density's children.
func densityVars(d ir.Dist) []ir.VarID {
	switch d := d.(type) {
	case *ir.Gaussian:
		return append([]ir.VarID{d.Child}, d.Real...)
	case *ir.MultiNormal:
		return d.Children
	}
	panic("infer: densityVars: not a density")
}
