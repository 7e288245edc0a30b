package causal

import (
	"strings"
)

// Expr is an expression of an estimand over the observed distribution P
// of a graph's variables. Its kinds are sealed: Prob, Product, Sum, Ratio.
// Its free variables are those of the query (Y, X, Z); a Sum binds the
// variables it sums over, shadowing any of the same name outside it.
type Expr interface {
	isExpr()
}

// Prob is a term P(Vars | Given) of the observed distribution (a
// marginal when Given is empty).
type Prob struct{ Vars, Given Set }

// Product is the product of its factors (1 if there are none).
type Product struct{ Factors []Expr }

// Sum is the sum of Body over every joint state of the variables Over.
type Sum struct {
	Over Set
	Body Expr
}

// Ratio is Num / Den: a conditional of a distribution given as an
// expression, or IDC's normalisation.
type Ratio struct{ Num, Den Expr }

func (Prob) isExpr()    {}
func (Product) isExpr() {}
func (Sum) isExpr()     {}
func (Ratio) isExpr()   {}

// sum returns Σ_over body, or body when over is empty. A summed variable
// that only one factor mentions, as a variable of a term P(A | B) and not
// in B, is summed out of that term: Σ_v P(v, A | B) = P(A | B).
func sum(over Set, body Expr) Expr {
	if s, ok := body.(Sum); ok && s.Over&over == 0 {
		over, body = over|s.Over, s.Body
	}
	for _, v := range over.members() {
		var fs []Expr
		if p, ok := body.(Product); ok {
			fs = p.Factors
		} else {
			fs = []Expr{body}
		}
		at := -1
		for k, f := range fs {
			if Free(f).has(v) {
				if at >= 0 {
					at = -2
					break
				}
				at = k
			}
		}
		if at < 0 {
			continue
		}
		pr, ok := fs[at].(Prob)
		if !ok || !pr.Vars.has(v) || pr.Given.has(v) {
			continue
		}
		rest := make([]Expr, 0, len(fs))
		rest = append(rest, fs[:at]...)
		if vars := pr.Vars.minus(single(v)); !vars.empty() {
			rest = append(rest, Prob{Vars: vars, Given: pr.Given})
		}
		rest = append(rest, fs[at+1:]...)
		body = Product{Factors: rest}
		if len(rest) == 1 {
			body = rest[0]
		}
		over = over.minus(single(v))
	}
	if over.empty() {
		return body
	}
	return Sum{Over: over, Body: body}
}

// product returns the product of the factors, flattening nested products.
func product(fs ...Expr) Expr {
	var out []Expr
	for _, f := range fs {
		if p, ok := f.(Product); ok {
			out = append(out, p.Factors...)
		} else {
			out = append(out, f)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return Product{Factors: out}
}

// Format returns e as a formula, naming variable i name(i); inScope holds
// the variables bound outside e (the query's), so a Sum that binds one of
// them again names it with a prime (x').
func Format(e Expr, name func(int) string, inScope Set) string {
	var b strings.Builder
	primes := make(map[int]int)
	for _, i := range inScope.members() {
		primes[i] = 0
	}
	format(&b, e, name, primes, false)
	return b.String()
}

func format(b *strings.Builder, e Expr, name func(int) string, primes map[int]int, inProduct bool) {
	vname := func(i int) string {
		return name(i) + strings.Repeat("'", primes[i])
	}
	list := func(s Set) string {
		m := s.members()
		parts := make([]string, len(m))
		for k, i := range m {
			parts[k] = vname(i)
		}
		return strings.Join(parts, ", ")
	}
	switch e := e.(type) {
	case Prob:
		b.WriteString("P(")
		b.WriteString(list(e.Vars))
		if !e.Given.empty() {
			b.WriteString(" | ")
			b.WriteString(list(e.Given))
		}
		b.WriteString(")")
	case Product:
		if len(e.Factors) == 0 {
			b.WriteString("1")
		}
		for k, f := range e.Factors {
			if k > 0 {
				b.WriteString(" ")
			}
			format(b, f, name, primes, true)
		}
	case Sum:
		saved := make(map[int]int)
		had := make(map[int]bool)
		for _, i := range e.Over.members() {
			p, ok := primes[i]
			saved[i], had[i] = p, ok
			if ok {
				primes[i] = p + 1
			} else {
				primes[i] = 0
			}
		}
		if inProduct {
			b.WriteString("[")
		}
		b.WriteString("Σ_{")
		b.WriteString(list(e.Over))
		b.WriteString("} ")
		format(b, e.Body, name, primes, false)
		if inProduct {
			b.WriteString("]")
		}
		for i, ok := range had {
			if ok {
				primes[i] = saved[i]
			} else {
				delete(primes, i)
			}
		}
	case Ratio:
		b.WriteString("[")
		format(b, e.Num, name, primes, false)
		b.WriteString("] / [")
		format(b, e.Den, name, primes, false)
		b.WriteString("]")
	}
}

// Free returns the variables e refers to that no Sum in it binds.
func Free(e Expr) Set {
	switch e := e.(type) {
	case Prob:
		return e.Vars | e.Given
	case Product:
		var s Set
		for _, f := range e.Factors {
			s |= Free(f)
		}
		return s
	case Sum:
		return Free(e.Body).minus(e.Over)
	case Ratio:
		return Free(e.Num) | Free(e.Den)
	}
	return 0
}
