package hypothesis

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// maxTerms bounds the expansion of a product of sums: a mean with more
// terms is evaluated a column at a time.
const maxTerms = 64

// factor is a factor of a term: a node, or its reciprocal.
type factor struct {
	n   *node
	inv bool
}

// term is coef · Π a · Π b: a product of a constant, of parameter-only
// factors and of column-only factors.
type term struct {
	coef float64
	a, b []factor
}

// linearize writes n as a sum of terms Σ coef·a(params)·b(columns),
// expanding sums and differences, distributing products over sums (up to
// maxTerms terms) and dividing by an expression that is not mixed. It
// reports false when n is not of that form (a mixed expression inside a
// function call or a power, a division by a mixed expression). With
// expandParams, parameter-only sums and products are expanded too, so
// that each a is a product of parameters (as FitML needs); otherwise a
// parameter-only subtree is kept as one factor.
func linearize(n *node, expandParams bool) ([]term, bool) {
	switch n.kind {
	case kConst:
		return []term{{coef: n.val}}, true
	case kColumn:
		return []term{{coef: 1, b: []factor{{n: n}}}}, true
	case kParam:
		if !expandParams || n.tag == tParam || n.tag == tCall ||
			(n.tag == tBinary && n.op != ir.OpAdd && n.op != ir.OpSub && n.op != ir.OpMul && n.op != ir.OpDiv) {
			return []term{{coef: 1, a: []factor{{n: n}}}}, true
		}
	}
	switch n.tag {
	case tUnary:
		t, ok := linearize(n.x, expandParams)
		return scale(t, -1), ok
	case tBinary:
		switch n.op {
		case ir.OpAdd, ir.OpSub:
			x, ok := linearize(n.x, expandParams)
			if !ok {
				return nil, false
			}
			y, ok := linearize(n.y, expandParams)
			if !ok || len(x)+len(y) > maxTerms {
				return nil, false
			}
			if n.op == ir.OpSub {
				y = scale(y, -1)
			}
			return append(x, y...), true
		case ir.OpMul:
			x, ok := linearize(n.x, expandParams)
			if !ok {
				return nil, false
			}
			y, ok := linearize(n.y, expandParams)
			if !ok || len(x)*len(y) > maxTerms {
				return nil, false
			}
			out := make([]term, 0, len(x)*len(y))
			for _, tx := range x {
				for _, ty := range y {
					out = append(out, term{
						coef: tx.coef * ty.coef,
						a:    append(append([]factor(nil), tx.a...), ty.a...),
						b:    append(append([]factor(nil), tx.b...), ty.b...),
					})
				}
			}
			return out, true
		case ir.OpDiv:
			if n.y.kind == kMixed {
				return nil, false
			}
			x, ok := linearize(n.x, expandParams)
			if !ok {
				return nil, false
			}
			for i := range x {
				t := &x[i]
				switch n.y.kind {
				case kConst:
					t.coef /= n.y.val
				case kParam:
					t.a = append(append([]factor(nil), t.a...), factor{n.y, true})
				case kColumn:
					t.b = append(append([]factor(nil), t.b...), factor{n.y, true})
				}
			}
			return x, true
		}
	}
	return nil, false
}

func scale(t []term, c float64) []term {
	for i := range t {
		t[i].coef *= c
	}
	return t
}

// value returns coef · Π a under parameters p.
func (t *term) value(p []float64) float64 {
	v := t.coef
	for _, f := range t.a {
		if f.inv {
			v /= f.n.at(p, nil)
		} else {
			v *= f.n.at(p, nil)
		}
	}
	return v
}

// columnVector returns Π b over the rows (all ones when there is no b
// factor). The factors must have been bound.
func (t *term) columnVector(rows int) []float64 {
	v := make([]float64, rows)
	for i := range v {
		v[i] = 1
	}
	for _, f := range t.b {
		if f.inv {
			for i, x := range f.n.vec {
				v[i] /= x
			}
		} else {
			for i, x := range f.n.vec {
				v[i] *= x
			}
		}
	}
	return v
}

// suffNormal is the log-likelihood of normal(MEAN, SD) over n rows from
// sufficient statistics, when SD depends on parameters only and MEAN =
// Σ_j a_j(params)·b_j(columns):
//
//	ln P(D|h) = −n·ln SD − (n/2)·ln 2π − SSE/(2·SD²)
//	SSE = Σ_i (d_i − Σ_j a_j b_ij)²
//
// To keep SSE's digits, it is expanded around the least-squares
// coefficients a* (the minimum-norm solution, by the SVD B = U S Vᵀ of
// the n×J matrix of the b_j): with r = d − B a* and δ = a − a*,
//
//	SSE = Σ r² − 2 δ·(Bᵀr) + |S Vᵀ δ|²
//
// where Bᵀr is 0 up to rounding and the last term is a sum of squares:
// no cancellation, and O(J²) per hypothesis whatever n.
type suffNormal struct {
	groups [][]term  // groups[j]: the terms whose b is b_j; a_j is the sum of their values
	astar  []float64 // a*
	s0     float64   // Σ r²
	g      []float64 // Bᵀr
	m      []float64 // S Vᵀ, k×J row-major
	k      int       // rows of m
	rows   float64   // n
	sd     *node     // parameter-only or constant

	// simple[j] >= 0 when a_j is coef[j]·p[simple[j]] (one term, one
	// parameter): the common case, read without walking the terms.
	simple []int
	coef   []float64
	// constNorm is −n·ln SD − (n/2)·ln 2π when SD is a constant.
	constNorm float64
	// cols[j] is b_j over the rows, for the evaluation a row at a time
	// (suffRows) where the statistics do not apply.
	cols [][]float64
	// noStats: the statistics overflowed (data beyond 1e154): every
	// hypothesis is evaluated a row at a time.
	noStats bool
	// errBound bounds the error of SSE's square root that rounding the
	// residuals r (of values up to the data's and B a*'s magnitude) may
	// cause: SSE/(2 SD²) keeps its digits only for SD well above it.
	errBound float64
}

// The range of SD over which suffNormal is used (usable): beyond it SD²
// or SSE/SD² leave float64's range, and a column at a time, from z =
// (d − MEAN)/SD, keeps the digits.
const (
	minSuffSD = 0x1p-300
	maxSuffSD = 0x1p300
	// suffDigits: SD must exceed errBound by this factor, so that the
	// rounding of the residuals changes ln P(D|h) by less than 1e-10 or
	// so (errBound²/(2 SD²)), as it does a column at a time.
	suffDigits = 1e5
)

// usable reports whether the sufficient statistics give ln P(D|h) to
// rounding for the standard deviation sd: sd in [2^-300, 2^300] and far
// above the rounding of the residuals (data of 1e24 with SD = 1 are
// not: their residuals at a* are rounded by ~1e8).
func (s *suffNormal) usable(sd float64) bool {
	return !s.noStats && sd >= minSuffSD && sd <= maxSuffSD && s.errBound*suffDigits <= sd
}

// newSuffNormal returns the sufficient statistics of a normal observation
// of column y with the given mean and sd, or nil when they do not apply
// (sd reads a column, the mean is not a sum of products, a column-only
// factor is not finite).
func newSuffNormal(mean, sd *node, y []float64) *suffNormal {
	if sd.dependsOnColumns() {
		return nil
	}
	terms, ok := linearize(mean, false)
	if !ok {
		return nil
	}
	rows := len(y)
	s := &suffNormal{rows: float64(rows), sd: sd}
	var cols [][]float64
	for _, t := range terms {
		v := t.columnVector(rows)
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil // the direct evaluation reports it
			}
		}
		j := 0
		for ; j < len(cols); j++ {
			if equal(cols[j], v) {
				break
			}
		}
		if j == len(cols) {
			cols = append(cols, v)
			s.groups = append(s.groups, nil)
		}
		s.groups[j] = append(s.groups[j], t)
	}
	nj := len(cols)
	s.astar, s.g = make([]float64, nj), make([]float64, nj)
	s.simple, s.coef = make([]int, nj), make([]float64, nj)
	for j, grp := range s.groups {
		s.simple[j] = -1
		if len(grp) == 1 && len(grp[0].a) == 1 && !grp[0].a[0].inv && grp[0].a[0].n.tag == tParam {
			s.simple[j], s.coef[j] = grp[0].a[0].n.idx, grp[0].coef
		}
	}
	if sd.kind == kConst {
		s.constNorm = -s.rows*math.Log(sd.val) - s.rows/2*ln2Pi
	}
	s.cols = cols
	if rows == 0 {
		return s
	}
	b := mat.NewDense(rows, nj, nil)
	for j, c := range cols {
		b.SetCol(j, c)
	}
	var svd mat.SVD
	if !svd.Factorize(b, mat.SVDThin) {
		return nil
	}
	vals := svd.Values(nil)
	rank := 0
	if len(vals) > 0 && vals[0] > 0 {
		rank = svd.Rank(float64(max(rows, nj)) * 0x1p-52)
	}
	if rank > 0 {
		var x mat.VecDense
		svd.SolveVecTo(&x, mat.NewVecDense(rows, y), rank)
		for j := range s.astar {
			s.astar[j] = x.AtVec(j)
		}
	}
	r := make([]float64, rows)
	mag := make([]float64, rows) // |y_i| + Σ_j |a*_j b_ij|
	for i := range r {
		v := y[i]
		m := math.Abs(v)
		for j, c := range cols {
			v -= s.astar[j] * c[i]
			m += math.Abs(s.astar[j] * c[i])
		}
		r[i], mag[i] = v, m
		s.s0 += v * v
	}
	// Each residual is rounded by at most (J+1)·ε·mag_i; the square
	// root of SSE by the norm of those (scaled: no overflow or
	// underflow).
	s.errBound = float64(nj+1) * 0x1p-52 * floats.Norm(mag, 2)
	for j, c := range cols {
		var sum float64
		for i, x := range c {
			sum += x * r[i]
		}
		s.g[j] = sum
	}
	var v mat.Dense
	svd.VTo(&v)
	s.k = len(vals)
	s.m = make([]float64, s.k*nj)
	for k := range s.k {
		for j := range nj {
			s.m[k*nj+j] = vals[k] * v.At(j, k)
		}
	}
	// Data beyond 1e154, whose squares overflow: a row at a time.
	s.noStats = !finite(s.s0) || !finite(s.errBound) || !allFinite(s.g) || !allFinite(s.m) || !allFinite(s.astar)
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func allFinite(x []float64) bool {
	for _, v := range x {
		if !finite(v) {
			return false
		}
	}
	return true
}

func equal(x, y []float64) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// coefAt returns a_j under parameters p: the sum of its terms' values.
func (s *suffNormal) coefAt(j int, p []float64) float64 {
	if k := s.simple[j]; k >= 0 {
		return s.coef[j] * p[k]
	}
	var a float64
	for t := range s.groups[j] {
		a += s.groups[j][t].value(p)
	}
	return a
}

// logLik returns ln P(D|h) under parameters p, using delta (len J) as
// scratch; ok is false when SD is not usable (not > 0 and finite, or out
// of the statistics' range), a coefficient is not finite or SSE
// overflows: the caller then evaluates the hypothesis a column at a
// time.
func (s *suffNormal) logLik(p, delta []float64) (ll float64, ok bool) {
	sd := s.sd.at(p, nil)
	if !s.usable(sd) {
		return 0, false
	}
	nj := len(s.groups)
	var lin float64
	for j := range s.groups {
		a := s.coefAt(j, p)
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return 0, false
		}
		delta[j] = a - s.astar[j]
		lin += delta[j] * s.g[j]
	}
	var q float64
	for k := range s.k {
		row := s.m[k*nj : k*nj+nj]
		var v float64
		for j, m := range row {
			v += m * delta[j]
		}
		q += v * v
	}
	sse := max(s.s0-2*lin+q, 0) // NaN stays NaN
	if s.sd.kind == kConst {
		ll = s.constNorm - sse/(2*sd*sd)
	} else {
		ll = -s.rows*math.Log(sd) - s.rows/2*ln2Pi - sse/(2*sd*sd)
	}
	return ll, finite(ll) // −Inf: below float64's range, which the caller tells apart
}

// ln2Pi is math.Log(2 * math.Pi), bit for bit (TestLn2Pi), as a
// constant so that start-up need not compute it.
const ln2Pi = 1.8378770664093453
