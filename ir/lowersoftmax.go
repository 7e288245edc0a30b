package ir

import (
	"strings"

	"github.com/pbl-lang/pbl/grammar"
)

// This file lowers the distribution of a discrete variable with
// real-valued parents, written logistic(A) (a child of two states, A the
// log-odds of its first state) or softmax(A1, ..., Ak) (a child of k
// states, one score per state), each argument affine in the real parents
// as a linear Gaussian density's mean is (lowerlinear.go); with discrete
// parents too, one per configuration of them, as rows:
//
//	P(Alarm | Pressure, Sensor) = {
//	    ok:     logistic(-20 + 0.15 * Pressure)
//	    faulty: logistic(0)
//	}

// isSoftmaxBody reports whether body is written logistic(...) or
// softmax(...), or has a row that is.
func isSoftmaxBody(body *grammar.Body) bool {
	if body.Value != nil {
		return body.Value.Softmax != nil
	}
	for _, r := range body.Rows {
		if r.Value != nil && r.Value.Softmax != nil {
			return true
		}
	}
	return false
}

// softmax lowers P(child | parents) = logistic(...) or softmax(...), or
// rows of them; child is discrete and parents holds at least one real
// variable.
func (l *lowerer) softmax(d *grammar.Dist, child VarID, parents []VarID) {
	m := l.b.m
	cv := m.Vars[child]
	name := Quote(cv.Name)
	discrete, real, card := splitParents(m, parents)
	k := len(cv.States)
	n, ok := TableSize(card)
	if ok {
		_, ok = TableSize([]int{n, k, len(real) + 1})
	}
	if !ok || n*k*(len(real)+1) > MaxTableSize/16 {
		l.b.Errorf(pos(d.Pos), "the scores of %s (one per state and parent configuration) %s", name, TooLarge(append(card, k, len(real)+1), MaxTableSize/16))
		return
	}
	if d.Normalize {
		l.b.Errorf(pos(d.Body.Pos), "normalize applies to rows of counts or weights, not to logistic(...) or softmax(...)")
		return
	}
	sm := &Softmax{Pos: pos(d.Pos), Child: child, K: k, Parents: discrete, Real: real,
		Bias: make([]float64, n*k), Coef: make([]float64, n*k*len(real))}
	logistic := make([]bool, n)
	value := func(v *grammar.Value, u int) bool {
		f := v.Softmax
		if f == nil {
			l.b.Errorf(pos(v.Pos), "%s is discrete and has real-valued parents: give logistic(A) (two states) or softmax(A1, ..., A%d), each argument affine in %s", name, k, nameList(m, real))
			return false
		}
		switch f.Fn {
		case "logistic":
			if k != 2 {
				l.b.Errorf(pos(f.Pos), "logistic(A) is for a variable of two states; %s has %d: give softmax(A1, ..., A%d), one score per state (%s)", name, k, k, strings.Join(cv.States, ", "))
				return false
			}
			if len(f.Args) != 1 {
				l.b.Errorf(pos(f.Pos), "logistic takes one argument, the log-odds of %s=%s, not %d", name, cv.States[0], len(f.Args))
				return false
			}
			c, coef, ok := l.affineOf(f.Args[0], "score", child, discrete, real)
			if !ok {
				return false
			}
			sm.Bias[u*k] = c
			copy(sm.Coef[u*k*len(real):], coef)
			logistic[u] = true
		default: // softmax
			if len(f.Args) != k {
				l.b.Errorf(pos(f.Pos), "softmax for %s takes %d arguments, one score per state (%s), not %d", name, k, strings.Join(cv.States, ", "), len(f.Args))
				return false
			}
			good := true
			for s, a := range f.Args {
				c, coef, ok := l.affineOf(a, "score", child, discrete, real)
				if !ok {
					good = false
					continue
				}
				sm.Bias[u*k+s] = c
				copy(sm.Coef[(u*k+s)*len(real):], coef)
			}
			return good
		}
		return true
	}
	body := d.Body
	switch {
	case len(discrete) == 0 && body.Value == nil:
		l.b.Errorf(pos(body.Pos), "P(%s | %s) has only real parents: give one logistic(A) or softmax(A1, ..., A%d), as in logistic(0 + 1 * %s)", name, nameList(m, real), k, Quote(m.Vars[real[0]].Name))
		return
	case len(discrete) == 0:
		if !value(body.Value, 0) {
			return
		}
	case body.Value != nil:
		l.b.Errorf(pos(body.Pos), "P(%s | ...) has discrete parents: give one logistic(...) or softmax(...) per configuration of them, as in { %s: logistic(0 + 1 * %s) }", name, exampleRow(m, discrete), Quote(m.Vars[real[0]].Name))
		return
	default:
		if !l.densityRows(d, discrete, card, n, "P("+name, value) {
			return
		}
	}
	for _, b := range logistic {
		if b {
			sm.Logistic = logistic
			break
		}
	}
	l.b.setSoftmax(sm)
}

// SetSoftmax gives the discrete variable child, with the discrete
// parents discrete and the real-valued parents real (at least one), the
// distribution softmax of the scores bias + coef·x per configuration of
// the discrete parents (see [Softmax] for the layout); logistic, if not
// nil, marks the configurations written logistic(A).
func (b *Builder) SetSoftmax(pos Pos, child VarID, discrete, real []VarID, bias, coef []float64, logistic []bool) {
	b.setSoftmax(&Softmax{Pos: pos, Child: child, K: len(b.m.Vars[child].States),
		Parents: append([]VarID(nil), discrete...), Real: append([]VarID(nil), real...),
		Bias: append([]float64(nil), bias...), Coef: append([]float64(nil), coef...),
		Logistic: append([]bool(nil), logistic...)})
}

// setSoftmax is SetSoftmax of d, which it keeps.
func (b *Builder) setSoftmax(d *Softmax) {
	m := b.m
	if b.decisionDist(d.Pos, d.Child) {
		return
	}
	if m.Dists[d.Child] != nil {
		b.Errorf(d.Pos, "second distribution for %s (first at %s)", Quote(m.Vars[d.Child].Name), m.Dists[d.Child].Position())
		return
	}
	if !checkSoftmax(&b.Errs, m, d) {
		return
	}
	m.Dists[d.Child] = d
	_, m.Parents[d.Child] = family(d)
	b.cptSeen[d.Child] = true
}
