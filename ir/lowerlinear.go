package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbl-lang/pbl/grammar"
	"github.com/pbl-lang/pbl/internal/spell"
)

// This file lowers the mean of a linear Gaussian density, normal(90 + 0.6
// * Age, 8): an expression of numbers and the real parents, affine in
// them — numbers, + and -, a product in which at most one factor holds a
// parent, a division by a number, parentheses, functions and powers of
// numbers alone. Anything else is an error of kind ErrNonLinearMean; a
// name that is not a real parent listed after | one of kind
// ErrNotAParent. A real parent listed but absent from a row's mean has
// the coefficient 0 there.

// affine is c + Σ_j coef[j]·x_j over the real parents x; coef is nil for
// a constant.
type affine struct {
	c    float64
	coef []float64
}

func (a affine) constant() bool {
	for _, x := range a.coef {
		if x != 0 {
			return false
		}
	}
	return true
}

// scale returns k·a.
func (a affine) scale(k float64) affine {
	out := affine{c: k * a.c}
	if a.coef != nil {
		out.coef = make([]float64, len(a.coef))
		for j, x := range a.coef {
			out.coef[j] = k * x
		}
	}
	return out
}

// add returns a + k·b.
func (a affine) add(b affine, k float64) affine {
	out := affine{c: a.c + k*b.c}
	if a.coef != nil || b.coef != nil {
		out.coef = make([]float64, max(len(a.coef), len(b.coef)))
		copy(out.coef, a.coef)
		for j, x := range b.coef {
			out.coef[j] += k * x
		}
	}
	return out
}

// linearLowerer lowers the mean of child's density, discrete and real
// its parents of each kind.
type linearLowerer struct {
	l        *lowerer
	child    VarID
	discrete []VarID
	real     []VarID
	what     string // what the expression is, for messages: "mean" (a density's), or "score" (a softmax's)
}

// subject names the expression in messages: the mean of "X".
func (x *linearLowerer) subject() string {
	what := x.what
	if what == "" {
		what = "mean"
	}
	return "the " + what + " of " + Quote(x.l.b.m.Vars[x.child].Name)
}

// errorf reports an error of kind kind at p.
func (x *linearLowerer) errorf(p grammar.Position, kind error, format string, args ...any) (affine, bool) {
	x.l.b.Errs = append(x.l.b.Errs, &Error{Pos: pos(p), Msg: fmt.Sprintf(format, args...), Err: kind})
	return affine{}, false
}

// nonLinear reports a non-affine operation at p, what describing it.
func (x *linearLowerer) nonLinear(p grammar.Position, what string) (affine, bool) {
	return x.errorf(p, ErrNonLinearMean, "%s is not linear in its real parents: %s; it must be affine in them (a number plus numbers times parents, as in 1.5 + 2 * X)",
		x.subject(), what)
}

func (x *linearLowerer) expr(e *grammar.Expr) (affine, bool) {
	if e.Op != "" {
		return x.nonLinear(e.Pos, "a comparison ("+e.Op+")")
	}
	return x.sum(e.Left)
}

func (x *linearLowerer) sum(s *grammar.Sum) (affine, bool) {
	acc, ok := x.product(s.Left)
	for _, t := range s.Tail {
		var right affine
		var good bool
		k := 1.0
		if t.Op != "" {
			if t.Op == "-" {
				k = -1
			}
			right, good = x.product(t.Right)
		} else {
			// A number right after an operand: x-1 is x - 1.
			if !strings.HasPrefix(*t.Number, "-") {
				x.l.b.Errorf(pos(t.Pos), "expected an operator before %s", *t.Number)
				ok = false
				continue
			}
			k = -1
			v, vok := x.l.num(pos(t.Pos), strings.TrimPrefix(*t.Number, "-"))
			right, good = affine{c: v}, vok
			if t.Exp != nil && good {
				right, good = x.power(t.Pos, right, t.Exp)
			}
			if good {
				right, good = x.mulTail(right, t.Mul)
			}
		}
		if !good {
			ok = false
			continue
		}
		if ok {
			acc = acc.add(right, k)
		}
	}
	return acc, ok
}

func (x *linearLowerer) product(p *grammar.Product) (affine, bool) {
	acc, ok := x.unary(p.Left)
	if !ok {
		return acc, false
	}
	return x.mulTail(acc, p.Tail)
}

func (x *linearLowerer) mulTail(acc affine, tail []*grammar.MulTail) (affine, bool) {
	for _, t := range tail {
		right, ok := x.unary(t.Right)
		if !ok {
			return right, false
		}
		if t.Op == "/" {
			if !right.constant() {
				return x.nonLinear(t.Pos, "a division by a real parent")
			}
			if right.c == 0 {
				return x.errorf(t.Pos, ErrNonLinearMean, "division by zero in %s", x.subject())
			}
			acc = acc.scale(1 / right.c)
			continue
		}
		switch {
		case right.constant():
			acc = acc.scale(right.c)
		case acc.constant():
			acc = right.scale(acc.c)
		default:
			return x.nonLinear(t.Pos, "a product of real parents")
		}
	}
	return acc, true
}

func (x *linearLowerer) unary(u *grammar.Unary) (affine, bool) {
	if u.Neg != nil {
		a, ok := x.unary(u.Neg)
		return a.scale(-1), ok
	}
	w := u.Power
	if w.Exp == nil {
		return x.primary(w.Base)
	}
	if w.Base.Number != nil && strings.HasPrefix(*w.Base.Number, "-") {
		// -2^2 lexes as the number -2 and ^ 2, and means -(2^2).
		v, ok := x.l.num(pos(w.Base.Pos), strings.TrimPrefix(*w.Base.Number, "-"))
		if !ok {
			return affine{}, false
		}
		a, ok := x.power(w.Pos, affine{c: v}, w.Exp)
		return a.scale(-1), ok
	}
	base, ok := x.primary(w.Base)
	if !ok {
		return base, false
	}
	return x.power(w.Pos, base, w.Exp)
}

// power returns base ^ exp, both numbers.
func (x *linearLowerer) power(at grammar.Position, base affine, exp *grammar.Unary) (affine, bool) {
	e, ok := x.unary(exp)
	if !ok {
		return e, false
	}
	if !base.constant() || !e.constant() {
		return x.nonLinear(at, "a power of a real parent")
	}
	return affine{c: math.Pow(base.c, e.c)}, true
}

func (x *linearLowerer) primary(p *grammar.Primary) (affine, bool) {
	switch {
	case p.Number != nil:
		v, ok := x.l.num(pos(p.Pos), *p.Number)
		return affine{c: v}, ok
	case p.Paren != nil:
		return x.expr(p.Paren)
	case p.Call != nil:
		fn, ok := LookupFunc(p.Call.Fn)
		if !ok {
			msg := "unknown function " + strconv.Quote(p.Call.Fn)
			if h := spell.Nearest(p.Call.Fn, funcText[:]); h != "" {
				msg += " (did you mean " + h + "?)"
			}
			return x.errorf(p.Pos, ErrNonLinearMean, "%s in %s", msg, x.subject())
		}
		if len(p.Call.Args) != 1 {
			return x.errorf(p.Pos, ErrNonLinearMean, "%s takes one argument, not %d", fn, len(p.Call.Args))
		}
		a, ok := x.expr(p.Call.Args[0])
		if !ok {
			return a, false
		}
		if !a.constant() {
			return x.nonLinear(p.Pos, fn.String()+"(...) of a real parent")
		}
		return affine{c: applyFunc(fn, a.c)}, true
	}
	name := p.Ident
	if name == "" {
		name = p.Quoted
	}
	return x.name(p.Pos, name)
}

// name resolves a name in the mean: a real parent, or an error.
func (x *linearLowerer) name(at grammar.Position, name string) (affine, bool) {
	m := x.l.b.m
	for j, r := range x.real {
		if m.Vars[r].Name == name {
			a := affine{coef: make([]float64, len(x.real))}
			a.coef[j] = 1
			return a, true
		}
	}
	child := Quote(m.Vars[x.child].Name)
	id, declared := m.byName[name]
	switch {
	case declared && id == x.child:
		return x.errorf(at, ErrNotAParent, "%s cannot be in its own %s", child, strings.TrimSuffix(strings.TrimPrefix(x.subject(), "the "), " of "+child))
	case declared && containsVar(x.discrete, id):
		return x.nonLinear(at, Quote(name)+" is a discrete parent, whose states choose the row and are not numbers")
	case declared && m.Vars[id].Discrete():
		return x.errorf(at, ErrNotAParent, "%s is discrete and not a parent of %s: only real parents, listed after |, may be in %s", Quote(name), child, x.subject())
	case declared:
		return x.errorf(at, ErrNotAParent, "%s is not listed as a parent of %s: list it after |, as in P(%s | ..., %s)", Quote(name), child, child, Quote(name))
	}
	names := make([]string, len(x.real))
	for j, r := range x.real {
		names[j] = m.Vars[r].Name
	}
	msg := "undefined variable " + strconv.Quote(name) + " in " + x.subject()
	h := spell.Nearest(name, names)
	if h == "" {
		h = spell.Nearest(name, m.Names())
	}
	if h != "" {
		msg += " (did you mean " + strconv.Quote(h) + "?)"
	}
	return x.errorf(at, ErrNotAParent, "%s", msg)
}

func containsVar(vs []VarID, v VarID) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

// applyFunc applies a function of an expression to a number.
func applyFunc(fn Func, v float64) float64 {
	switch fn {
	case FnExp:
		return math.Exp(v)
	case FnLog:
		return math.Log(v)
	case FnSqrt:
		return math.Sqrt(v)
	case FnSigmoid:
		return 1 / (1 + math.Exp(-v))
	case FnAbs:
		return math.Abs(v)
	}
	panic("ir: unknown function")
}

// linearMean lowers a mean expression e of child's density: its intercept
// and its coefficients, one per real parent (nil if there are none), or
// reports why it is not affine in them.
func (l *lowerer) linearMean(e *grammar.Expr, child VarID, discrete, real []VarID) (float64, []float64, bool) {
	return l.affineOf(e, "mean", child, discrete, real)
}

// affineOf lowers an expression e affine in child's real parents — what
// it is ("mean", "score") naming it in messages — to its intercept and
// its coefficients, one per real parent (nil if there are none), or
// reports why it is not affine in them.
func (l *lowerer) affineOf(e *grammar.Expr, what string, child VarID, discrete, real []VarID) (float64, []float64, bool) {
	x := &linearLowerer{l: l, child: child, discrete: discrete, real: real, what: what}
	a, ok := x.expr(e)
	if !ok {
		return 0, nil, false
	}
	var coef []float64
	if len(real) > 0 {
		coef = make([]float64, len(real))
		copy(coef, a.coef)
	}
	return a.c, coef, true
}
