package causal

import "strings"

// dist is the distribution the ID recursion carries: the observed joint
// marginal P(vars | given) (prob), a product of conditionals in
// topological order (chain, from line 7), or any expression.
type dist struct {
	vars    Set
	expr    Expr
	prob    bool
	given   Set
	chain   []int  // chain: the variables in order
	factors []Expr // chain: factor k is P(chain[k] | its predecessors)
}

// marginal returns Σ_{vars \ keep} P.
func (p dist) marginal(keep Set) Expr {
	keep &= p.vars
	switch {
	case keep == p.vars:
		return p.expr
	case p.prob:
		return Prob{Vars: keep, Given: p.given}
	case p.chain != nil:
		if k, ok := prefixLen(p.chain, keep); ok {
			return product(p.factors[:k]...)
		}
	}
	return sum(p.vars.minus(keep), p.expr)
}

// marginalDist is marginal as a dist.
func (p dist) marginalDist(keep Set) dist {
	keep &= p.vars
	if p.prob {
		return dist{vars: keep, expr: Prob{Vars: keep, Given: p.given}, prob: true, given: p.given}
	}
	if p.chain != nil {
		if k, ok := prefixLen(p.chain, keep); ok {
			return dist{vars: keep, expr: product(p.factors[:k]...), chain: p.chain[:k], factors: p.factors[:k]}
		}
	}
	return dist{vars: keep, expr: p.marginal(keep)}
}

// conditional returns P(v | pre) (pre ⊆ vars, v ∉ pre).
func (p dist) conditional(v int, pre Set) Expr {
	pre &= p.vars
	switch {
	case p.prob:
		return Prob{Vars: single(v), Given: pre | p.given}
	case p.chain != nil:
		if k, ok := prefixLen(p.chain, pre); ok && k < len(p.chain) && p.chain[k] == v {
			return p.factors[k]
		}
	}
	if pre.empty() {
		return p.marginal(single(v))
	}
	return Ratio{Num: p.marginal(pre.add(v)), Den: p.marginal(pre)}
}

// prefixLen reports whether s is the set of the first k variables of
// order, and k.
func prefixLen(order []int, s Set) (int, bool) {
	var acc Set
	if s.empty() {
		return 0, true
	}
	for k, v := range order {
		acc = acc.add(v)
		if acc == s {
			return k + 1, true
		}
		if !s.has(v) {
			return 0, false
		}
	}
	return 0, false
}

// fail is line 5's hedge: the variables of F and F', and the effect
// P(y | do(x)) ID was asked for at the top.
type fail struct{ f, fPrime, y, x Set }

// id is the ID algorithm of Shpitser and Pearl (2006, figure 3): P_x(y)
// from the distribution p over the variables of the subgraph v.
func (g *ADMG) id(y, x Set, p dist, v Set) (Expr, *fail) {
	// line 1
	if x.empty() {
		return p.marginal(y), nil
	}
	// line 2
	if an := g.ancestors(y, v, 0); an != v {
		return g.id(y, x&an, p.marginalDist(an), an)
	}
	// line 3
	if w := v.minus(x).minus(g.ancestors(y, v, x)); !w.empty() {
		return g.id(y, x|w, p, v)
	}
	// line 4
	ds := g.districts(v.minus(x))
	if len(ds) > 1 {
		fs := make([]Expr, len(ds))
		for k, s := range ds {
			e, f := g.id(s, v.minus(s), p, v)
			if f != nil {
				return nil, f
			}
			fs[k] = e
		}
		return sum(v.minus(y|x), product(fs...)), nil
	}
	s := ds[0]
	cg := g.districts(v)
	// line 5
	if len(cg) == 1 {
		return nil, &fail{f: v, fPrime: s}
	}
	// S is bidirected-connected, so it lies inside the district c of G
	// that holds any one of its variables.
	var c Set
	for _, d := range cg {
		if d.has(s.members()[0]) {
			c = d
		}
	}
	var pre Set
	if c == s { // line 6
		var fs []Expr
		for _, vi := range g.order {
			if !v.has(vi) {
				continue
			}
			if s.has(vi) {
				fs = append(fs, p.conditional(vi, pre))
			}
			pre = pre.add(vi)
		}
		return sum(s.minus(y), product(fs...)), nil
	}
	// line 7: S ⊊ c
	q := dist{vars: c}
	for _, vi := range g.order {
		if !v.has(vi) {
			continue
		}
		if c.has(vi) {
			q.chain = append(q.chain, vi)
			q.factors = append(q.factors, p.conditional(vi, pre))
		}
		pre = pre.add(vi)
	}
	q.expr = product(q.factors...)
	return g.id(y, x&c, q, c)
}

// idc is the IDC algorithm of Shpitser and Pearl (2006b): P_x(y | z).
func (g *ADMG) idc(y, x, z Set) (Expr, *fail) {
	for _, zi := range z.members() {
		if g.augmented(x, single(zi)).separated(y, single(zi), x|z.minus(single(zi))) {
			return g.idc(y, x.add(zi), z.minus(single(zi)))
		}
	}
	all := g.all()
	p := dist{vars: all, expr: Prob{Vars: all}, prob: true}
	e, f := g.id(y|z, x, p, all)
	if f != nil {
		f.y, f.x = y|z, x
		return nil, f
	}
	if z.empty() {
		return e, nil
	}
	return Ratio{Num: e, Den: sum(y, e)}, nil
}

// Query is a causal query P(Y | do(X), Z), by names.
type Query struct {
	Y, X, Z []string
}

// Estimand is an identified causal effect: a formula over the observed
// distribution.
type Estimand struct {
	Method     string   // "backdoor", "front-door", "ID" or "IDC"
	Adjustment []string // the backdoor adjustment set or front-door mediators, if Method is one of those
	Expr       Expr
	g          *ADMG
	y, x, z    Set
}

// String returns the estimand as a formula. A variable the formula
// refers to outside the query (an intervention ID added on a variable
// that does not affect Y) may take any value, which the formula says.
func (e *Estimand) String() string {
	s := Format(e.Expr, e.g.Name, e.y|e.x|e.z)
	if extra := Free(e.Expr).minus(e.y | e.x | e.z); !extra.empty() {
		s += ", for any " + strings.Join(e.g.namesOf(extra), ", ")
	}
	return s
}

func (g *ADMG) queryString(y, x, z Set) string {
	var b strings.Builder
	b.WriteString("P(")
	b.WriteString(strings.Join(g.namesOf(y), ", "))
	if !x.empty() || !z.empty() {
		b.WriteString(" | ")
	}
	if !x.empty() {
		b.WriteString("do(" + strings.Join(g.namesOf(x), ", ") + ")")
		if !z.empty() {
			b.WriteString(", ")
		}
	}
	b.WriteString(strings.Join(g.namesOf(z), ", "))
	b.WriteString(")")
	return b.String()
}

// Identify returns an estimand of P(Y | do(X), Z) over the observed
// distribution, or a *NotIdentifiableError with the hedge that proves
// there is none, or an *Error (ErrUnknownVariable, ErrQuery). With Z
// empty it prefers the backdoor adjustment with a smallest minimal set,
// then the front-door formula (searched for among at most 12 candidate
// variables), then the ID algorithm; with Z it prefers the conditional
// backdoor adjustment Σ_s P(y | x, z, s) P(s | z) (Z ∪ S satisfying the
// backdoor criterion, Z no descendant of X), then IDC.
func (g *ADMG) Identify(q Query) (*Estimand, error) {
	y, err := g.setOf(q.Y)
	if err != nil {
		return nil, err
	}
	x, err := g.setOf(q.X)
	if err != nil {
		return nil, err
	}
	z, err := g.setOf(q.Z)
	if err != nil {
		return nil, err
	}
	if y.empty() {
		return nil, errorf(ErrQuery, "a causal query needs at least one outcome variable")
	}
	if y&x != 0 || y&z != 0 || x&z != 0 {
		return nil, errorf(ErrQuery, "%s: the outcome, intervention and condition variables must differ", g.queryString(y, x, z))
	}
	est := &Estimand{g: g, y: y, x: x, z: z}
	if z.empty() && !x.empty() {
		if sets, err := g.adjustmentSetsUpTo(x, y, maxPreferCandidates); err == nil && len(sets) > 0 {
			best := sets[0]
			for _, s := range sets[1:] {
				if s.len() < best.len() {
					best = s
				}
			}
			est.Method, est.Adjustment = "backdoor", g.namesOf(best)
			est.Expr = sum(best, product(Prob{Vars: y, Given: x | best}, Prob{Vars: best}))
			if best.empty() {
				est.Expr = Prob{Vars: y, Given: x}
			}
			return est, nil
		}
		if m, ok := g.frontDoor(x, y); ok {
			est.Method, est.Adjustment = "front-door", g.namesOf(m)
			est.Expr = sum(m, product(Prob{Vars: m, Given: x}, Sum{Over: x, Body: product(Prob{Vars: y, Given: x | m}, Prob{Vars: x})}))
			return est, nil
		}
	}
	if !z.empty() && !x.empty() {
		if s, ok := g.conditionalBackdoor(x, y, z); ok {
			est.Method, est.Adjustment = "backdoor", g.namesOf(s)
			est.Expr = sum(s, product(Prob{Vars: y, Given: x | z | s}, Prob{Vars: s, Given: z}))
			if s.empty() {
				est.Expr = Prob{Vars: y, Given: x | z}
			}
			return est, nil
		}
	}
	e, f := g.idc(y, x, z)
	if f != nil {
		roots := f.fPrime & g.ancestors(f.y, g.all(), f.x)
		h := Hedge{F: g.namesOf(f.f), FPrime: g.namesOf(f.fPrime), Roots: g.namesOf(roots), Y: g.namesOf(f.y), X: g.namesOf(f.x)}
		return nil, &NotIdentifiableError{Query: g.queryString(y, x, z), Hedge: h}
	}
	est.Method, est.Expr = "ID", e
	if !z.empty() {
		est.Method = "IDC"
	}
	return est, nil
}
