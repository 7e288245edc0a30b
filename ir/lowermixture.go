package ir

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// This file lowers joint normal densities, P(x, y | C) = { c: normal([MEANS],
// COV) ... }, and mixture declarations, mixture C of x, y.

// multiNormal lowers P(X, Y | A) = ... for real X, Y: one
// normal([MEANS], COV) per configuration of the discrete parents (one
// alone for no parents).
func (l *lowerer) multiNormal(d *grammar.Dist, children, parents []VarID) {
	m := l.b.m
	n := len(children)
	what := "P(" + nameList(m, children) + ")"
	for i, c := range children {
		if m.Vars[c].Discrete() {
			at := d.Child.Pos
			if i > 0 {
				at = d.More[i-1].Pos
			}
			l.b.Errorf(pos(at), "%s is discrete; a joint normal density P(x, y | ...) is of real-valued variables", strconv.Quote(m.Vars[c].Name))
			return
		}
	}
	card := make([]int, len(parents))
	for i, p := range parents {
		if !m.Vars[p].Discrete() {
			l.b.Errorf(pos(d.Parents[i].Pos), "%q is real-valued; the parents of a real variable must be discrete", m.Vars[p].Name)
			return
		}
		card[i] = len(m.Vars[p].States)
	}
	rows, ok := TableSize(card)
	if !ok || rows*n*n > MaxTableSize/16 {
		l.b.Errorf(pos(d.Pos), "the densities of %s (one per parent configuration) %s", what, TooLarge(append(card, n*n), MaxTableSize/16))
		return
	}
	mn := &MultiNormal{Pos: pos(d.Pos), Children: children, Parents: parents,
		Mean: make([][]float64, rows), Cov: make([][]float64, rows)}
	forms := map[CovForm]bool{}
	spread := make([]Spread, rows)
	rowForms := make([]CovForm, rows)
	normal := func(v *grammar.Value, u int) bool {
		if v.Normal == nil {
			l.b.Errorf(pos(v.Pos), "%s is a joint density of real-valued variables: give normal([MEANS], COV)", what)
			return false
		}
		if v.Normal.Linear != nil {
			l.b.Errorf(pos(v.Normal.Linear.Pos), "%s: the means are a list of %d numbers, one per variable, as in [%s] (a mean given by real parents is for one variable's density)", what, n, exampleVec(n))
			return false
		}
		mean, ok := l.numbers(v.Normal.Mean)
		if !ok || len(mean) != n || v.Normal.Mean.Number != nil {
			l.b.Errorf(pos(v.Normal.Mean.Pos), "%s: the means are a list of %d numbers, one per variable, as in [%s]", what, n, exampleVec(n))
			return false
		}
		named, ok := l.spreadName(v.Normal.Named, true)
		if !ok {
			return false
		}
		cov, form, ok := l.covariance(v.Normal.Spread, named, n, what)
		if !ok {
			return false
		}
		mn.Mean[u], mn.Cov[u], spread[u] = mean, cov, named
		forms[form] = true
		rowForms[u] = form
		return true
	}
	body := d.Body
	good := true
	switch {
	case len(parents) == 0 && body.Value == nil:
		l.b.Errorf(pos(body.Pos), "%s has no parents: give normal([MEANS], COV)", what)
		return
	case len(parents) == 0:
		good = normal(body.Value, 0)
	case body.Value != nil:
		l.b.Errorf(pos(body.Pos), "%s | ...) has parents: give one normal([MEANS], COV) per parent configuration, as in { %s: normal([%s], 1) }", strings.TrimSuffix(what, ")"), exampleRow(m, parents), exampleVec(n))
		return
	default:
		good = l.densityRows(d, parents, card, rows, strings.TrimSuffix(what, ")"), normal)
	}
	if !good {
		return
	}
	switch {
	case forms[FullCov]:
		mn.Form = FullCov
	case forms[DiagCov]:
		mn.Form = DiagCov
	default:
		mn.Form = SphericalCov
	}
	if slices.ContainsFunc(spread, func(s Spread) bool { return s != SpreadPositional }) {
		mn.Spread = spread
	}
	if len(forms) > 1 {
		mn.Forms = rowForms
	}
	l.b.SetMultiNormal(mn)
}

// spreadAlias returns the name pbl gives what a name a user may reach
// for means (stddev: sd), or "". (A function, not a map: pbl's packages
// allocate nothing at start-up.)
func spreadAlias(name string) string {
	switch name {
	case "std", "stdev", "stddev", "sigma", "scale":
		return "sd"
	case "variance", "sigma2":
		return "var"
	case "covariance", "sigma_matrix":
		return "cov"
	}
	return ""
}

// spreadName lowers the name of a normal density's spread, if it is
// named: sd or var, and cov for the joint density of several variables.
func (l *lowerer) spreadName(n *grammar.ArgName, several bool) (Spread, bool) {
	if n == nil {
		return SpreadPositional, true
	}
	names := []string{"sd", "var"}
	if several {
		names = append(names, "cov")
	}
	if i := slices.Index(SpreadNames[:], n.Name); i > 0 && slices.Contains(names, n.Name) {
		return Spread(i), true
	}
	if n.Name == "cov" {
		l.b.Errorf(pos(n.Pos), "cov = is the covariance matrix of several variables' joint density: normal(MEAN, ...) of one variable takes sd = or var =")
		return 0, false
	}
	msg := "normal(MEAN, ...) of one variable names its spread sd = or var =, not " + strconv.Quote(n.Name)
	if several {
		msg = "normal([MEANS], ...) names its spread sd =, var = or cov =, not " + strconv.Quote(n.Name)
	}
	h := spreadAlias(n.Name)
	if !slices.Contains(names, h) {
		h = spell.Nearest(n.Name, names)
	}
	if h != "" {
		msg += " (did you mean " + strconv.Quote(h) + "?)"
	}
	l.b.Errorf(pos(n.Pos), "%s", msg)
	return 0, false
}

// positiveSpread reports whether x, a standard deviation or variance
// written as such (named sd = or var =), is positive, and reports it if
// not, at a; a spread by position, or named cov =, is checked with the
// density.
func (l *lowerer) positiveSpread(form Spread, a *grammar.Array, x float64) bool {
	if x > 0 || form != SpreadSD && form != SpreadVar {
		return true
	}
	what := "a standard deviation"
	if form == SpreadVar {
		what = "a variance"
	}
	l.b.Errorf(pos(a.Pos), "%s = %s: %s must be positive", form, FormatFloat(x), what)
	return false
}

// numbers lowers an array of numbers, [1, 2, 3].
func (l *lowerer) numbers(a *grammar.Array) ([]float64, bool) {
	if a.Number != nil {
		x, ok := l.number(a.Pos, *a.Number)
		return []float64{x}, ok
	}
	out := make([]float64, 0, len(a.Items))
	for _, it := range a.Items {
		if it.Number == nil {
			l.b.Errorf(pos(it.Pos), "expected a number, found a list")
			return nil, false
		}
		x, ok := l.number(it.Pos, *it.Number)
		if !ok {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// covariance lowers the covariance of a joint normal density of n
// variables, as a d×d row-major matrix: by position or named cov =, a
// matrix [[...], ...] (full), its diagonal [v1, ..., vn], or one variance
// v for every variable; named var =, the variances [v1, ..., vn] or one v;
// named sd =, the standard deviations [s1, ..., sn] or one s.
func (l *lowerer) covariance(a *grammar.Array, named Spread, n int, what string) ([]float64, CovForm, bool) {
	cov := make([]float64, n*n)
	// variance lowers one variance, or standard deviation, at.
	variance := func(at *grammar.Array, x float64) (float64, bool) {
		if !l.positiveSpread(named, at, x) {
			return 0, false
		}
		if named != SpreadSD {
			return x, true
		}
		if v := x * x; v > 0 && !math.IsInf(v, 0) {
			return v, true
		}
		l.b.Errorf(pos(at.Pos), "sd = %s: its square, the variance, is beyond float64's range", FormatFloat(x))
		return 0, false
	}
	switch {
	case a.Number != nil:
		v, ok := l.number(a.Pos, *a.Number)
		if ok {
			v, ok = variance(a, v)
		}
		for i := range n {
			cov[i*n+i] = v
		}
		return cov, SphericalCov, ok
	case len(a.Items) > 0 && a.Items[0].Number != nil:
		vs, ok := l.numbers(a)
		if ok && len(vs) != n {
			per := fmt.Sprintf("the variances are a list of %d numbers, one per variable, or a %d×%d covariance matrix", n, n, n)
			switch named {
			case SpreadSD:
				per = fmt.Sprintf("sd = takes a list of %d standard deviations, one per variable, or one number for all", n)
			case SpreadVar:
				per = fmt.Sprintf("var = takes a list of %d variances, one per variable, or one number for all", n)
			}
			l.b.Errorf(pos(a.Pos), "%s: %s", what, per)
			return nil, 0, false
		}
		for i, v := range vs {
			if v, ok = variance(a.Items[i], v); !ok {
				return nil, 0, false
			}
			cov[i*n+i] = v
		}
		return cov, DiagCov, ok
	case named == SpreadSD || named == SpreadVar:
		l.b.Errorf(pos(a.Pos), "%s = takes one number per variable, or one for all, not a matrix: a covariance matrix is cov = [[...], ...]", named)
		return nil, 0, false
	}
	if len(a.Items) != n {
		l.b.Errorf(pos(a.Pos), "%s: the covariance matrix has %s, expected %d", what, Plural(len(a.Items), "row"), n)
		return nil, 0, false
	}
	for i, row := range a.Items {
		vs, ok := l.numbers(row)
		if !ok {
			return nil, 0, false
		}
		if row.Number != nil || len(vs) != n {
			l.b.Errorf(pos(row.Pos), "%s: row %d of the covariance matrix has %s, expected %d", what, i+1, Plural(len(vs), "number"), n)
			return nil, 0, false
		}
		copy(cov[i*n:], vs)
	}
	return cov, FullCov, true
}

// mixtures lowers the mixture declarations of the files read: each gives
// its variables the component as their parent, and a joint normal density
// (a normal one, for a single variable) to learn.
func (l *lowerer) mixtures() {
	m := l.b.m
	in := map[VarID]Pos{} // variables already in a mixture
	for _, f := range l.files {
		for _, s := range f.Stmts {
			g, ok := s.(*grammar.Mixture)
			if !ok {
				continue
			}
			mx := &Mixture{Pos: pos(g.Pos)}
			c, ok := l.lookup(g.Component)
			if !ok {
				continue
			}
			if !m.Vars[c].Discrete() {
				l.b.Errorf(pos(g.Component.Pos), "the component of a mixture is a discrete variable, and %s is real-valued", strconv.Quote(m.Vars[c].Name))
				continue
			}
			mx.Component = c
			good := true
			for _, n := range g.Vars {
				v, ok := l.lookup(n)
				switch {
				case !ok:
					good = false
				case m.Vars[v].Discrete():
					l.b.Errorf(pos(n.Pos), "%s is discrete; a mixture is of real-valued variables", strconv.Quote(n.Text()))
					good = false
				case slices.Contains(mx.Vars, v):
					l.b.Errorf(pos(n.Pos), "%s appears twice in the mixture", strconv.Quote(n.Text()))
					good = false
				case l.b.cptSeen[v] || m.Dists[v] != nil:
					l.b.Errorf(pos(n.Pos), "%s has a distribution already; a mixture declares one to learn", strconv.Quote(n.Text()))
					good = false
				default:
					if at, dup := in[v]; dup {
						l.b.Errorf(pos(n.Pos), "%s is in another mixture (at %s)", strconv.Quote(n.Text()), at)
						good = false
					}
				}
				mx.Vars = append(mx.Vars, v)
			}
			if !l.mixtureOptions(g, mx) || !good {
				continue
			}
			for _, v := range mx.Vars {
				in[v] = mx.Pos
				l.b.SetParents(v, []VarID{c})
			}
			m.Mixtures = append(slices.Clip(m.Mixtures), mx) // never into a base model's array
		}
	}
}

// mixtureOptions lowers a mixture's options into mx.
func (l *lowerer) mixtureOptions(g *grammar.Mixture, mx *Mixture) bool {
	good := true
	var formAt *grammar.Option
	for _, o := range g.Options {
		switch o.Name {
		case "covariance":
			i := slices.Index(CovForms, o.Value)
			if i < 0 {
				l.b.Errorf(pos(o.Pos), "option covariance = %s: want one of %s", o.Value, strings.Join(CovForms, ", "))
				good = false
				continue
			}
			mx.Form, formAt = CovForm(i), o
		case "variance":
			x, ok := l.number(o.Pos, o.Value)
			if ok && !(x > 0) {
				l.b.Errorf(pos(o.Pos), "option variance = %s: want a positive number", o.Value)
				ok = false
			}
			good = good && ok
			mx.Variance = x
		default:
			msg := "a mixture takes no option " + strconv.Quote(o.Name)
			if h := spell.Nearest(o.Name, []string{"covariance", "variance"}); h != "" {
				msg += " (did you mean " + strconv.Quote(h) + "?)"
			} else {
				msg += " (its options: covariance, variance)"
			}
			l.b.Errorf(pos(o.Pos), "%s", msg)
			good = false
		}
	}
	if mx.Variance > 0 && formAt != nil && mx.Form != SphericalCov {
		l.b.Errorf(pos(formAt.Pos), "a known variance is the same for every variable and component: covariance = %s cannot go with variance = ...", mx.Form)
		good = false
	}
	if mx.Variance > 0 {
		mx.Form = SphericalCov
	}
	return good
}
