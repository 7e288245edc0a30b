package ir

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// This file holds the joint normal densities of several real variables
// given discrete parents (a Gaussian mixture's components), and the
// mixture declarations whose numbers are to be learned.

// CovForm is the form of a joint normal density's covariances: how they
// were written, and how they are learned.
type CovForm int

const (
	FullCov      CovForm = iota // a covariance matrix per parent configuration
	DiagCov                     // the variables independent given the parents: a variance each
	SphericalCov                // one variance per parent configuration, the same for every variable
	TiedCov                     // one covariance matrix shared by every parent configuration
)

// CovForms are the names of the forms, as options give them, indexed by
// CovForm.
var CovForms = []string{"full", "diag", "spherical", "tied"}

func (f CovForm) String() string {
	if f >= 0 && int(f) < len(CovForms) {
		return CovForms[f]
	}
	return "CovForm(" + strconv.Itoa(int(f)) + ")"
}

// MultiNormal is the joint density of the real variables Children given
// discrete Parents: a multivariate normal distribution per configuration
// of the parents (row-major over Parents, the last fastest), as in a
// Gaussian mixture, whose component is the parent. It is the distribution
// of each of its children: Model.Dist(x) is the same MultiNormal for every
// child x.
type MultiNormal struct {
	Pos      Pos
	Children []VarID
	Parents  []VarID
	Mean     [][]float64 // Mean[u][i]: the mean of Children[i] in configuration u
	Cov      [][]float64 // Cov[u]: the covariance matrix in configuration u, d×d row-major, symmetric positive definite
	Form     CovForm     // how the covariances were written (or are to be learned)
	Spread   []Spread    // how each configuration's covariance was named (sd =, var =, cov =), or nil: by position

	// Forms[u] is the form configuration u's covariance was written in,
	// when the rows were written in different forms (Form is then the
	// most general of them); nil when every row has Form.
	Forms []CovForm
}

// SpreadOf returns how configuration u's covariance was written.
func (d *MultiNormal) SpreadOf(u int) Spread {
	if u < len(d.Spread) {
		return d.Spread[u]
	}
	return SpreadPositional
}

// FormOf returns the form of configuration u's covariance.
func (d *MultiNormal) FormOf(u int) CovForm {
	if d.Forms != nil {
		return d.Forms[u]
	}
	return d.Form
}

func (d *MultiNormal) Position() Pos { return d.Pos }
func (*MultiNormal) dist()           {}

// MultiNormal returns the joint density of which the real variable v is
// a child, or nil.
func (m *Model) MultiNormal(v VarID) *MultiNormal {
	d, _ := m.Dists[v].(*MultiNormal)
	return d
}

// Mixture is a `mixture C of x, y` declaration: the real variables Vars
// have a joint normal density given the discrete Component (a univariate
// one, ir.Gaussian, for a single variable), whose numbers are to be
// learned with the covariance form Form, or, when Variance > 0, with that
// variance known and shared by every component and variable (only the
// means are learned, as in k-means).
type Mixture struct {
	Pos       Pos
	Component VarID
	Vars      []VarID
	Form      CovForm
	Variance  float64
}

// LogDensities sets dst[u], for every parent configuration u, to the log
// density of the children whose positions in Children are idx, at the
// values x (in that order) — ln N(x; Mean[u][idx], Cov[u][idx, idx]), the
// marginal density of those children — less shift, a term common to every
// u, which it returns. As ir.NormalLogDensities does for one variable, it
// keeps the differences between configurations right far from every mean,
// where the squared distances lose the means' digits (x = 1e17: x − 1 and
// x − 0 are the same float64) or overflow: the distances are computed on
// x − mean scaled by the largest |x − mean|, and there the nearest
// configuration r is the reference, the others compared with it through
// the difference of their squared whitened distances, computed from the
// difference of the means without subtracting x from itself (shift, r's
// own log density, may then be −Inf). It returns an error if the
// covariance of the subset is not positive definite (which validation
// rules out for the whole).
func (d *MultiNormal) LogDensities(idx []int, x []float64, dst []float64) (shift float64, err error) {
	n, k := len(d.Children), len(idx)
	// half is (x − mean)/2, which cannot overflow where x − mean can
	// (x = −1e308, mean = 1e308); scale is the largest |x − mean|/2.
	half := func(a, i, u int) float64 { return x[a]/2 - d.Mean[u][i]/2 }
	scale := 0.0
	for u := range d.Mean {
		for a, i := range idx {
			scale = max(scale, math.Abs(half(a, i, u)))
		}
	}
	if scale == 0 {
		scale = 0.5
	}
	base := make([]float64, len(d.Mean)) // −(k ln 2π + ln det Σ)/2
	q := make([]float64, len(d.Mean))    // (x−μ)ᵀΣ⁻¹(x−μ) / scale²
	chol := make([]*mat.TriDense, len(d.Mean))
	cov := mat.NewSymDense(k, nil)
	diff := make([]float64, k)
	for u := range d.Mean {
		for a, i := range idx {
			diff[a] = half(a, i, u) / scale
			for b, j := range idx[:a+1] {
				cov.SetSym(a, b, d.Cov[u][i*n+j])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(cov) {
			return 0, errNotPD
		}
		chol[u] = &mat.TriDense{}
		ch.LTo(chol[u])
		q[u] = sqNorm(whiten(chol[u], diff))
		base[u] = -0.5 * (float64(k)*math.Log(2*math.Pi) + ch.LogDet())
	}
	hs := scale
	scale *= 2 // the distances are (x − mean)/scale (scale may be +Inf)
	s2 := scale * scale
	far := false
	for u := range q {
		// As ir.NormalLogDensities: beyond 1e7 standard deviations, or
		// where the square overflows, the differences lose their digits.
		far = far || !(s2*q[u] < farZ*farZ)
	}
	if !far {
		for u := range dst {
			dst[u] = base[u] - 0.5*s2*q[u]
		}
		return 0, nil
	}
	// dq returns (q_u − q_r)·scale²/2 without subtracting x from itself:
	// with w = L⁻¹(x − μ) the whitened distance, w_u = L_u⁻¹(x − μ_r) +
	// L_u⁻¹(μ_r − μ_u), and q_u − q_r = (w_u − w_r)·(w_u + w_r).
	dr := make([]float64, k)
	delta := make([]float64, k)
	dq := func(u, r int) float64 {
		if u == r {
			return 0
		}
		for a, i := range idx {
			dr[a] = half(a, i, r) / hs
			delta[a] = (d.Mean[r][i]/2 - d.Mean[u][i]/2) / hs
		}
		wr := whiten(chol[r], dr)
		wu := whiten(chol[u], dr)
		wd := whiten(chol[u], delta)
		m := 0.0
		for a := range wu {
			wu[a] -= wr[a] // L_u⁻¹(x − μ_r) − L_r⁻¹(x − μ_r): 0 where the covariances are equal
			wu[a] += wd[a] // w_u − w_r
			wr[a] = 2*wr[a] + wu[a]
			m = max(m, math.Abs(wu[a]), math.Abs(wr[a]))
		}
		if m == 0 {
			return 0
		}
		dot := 0.0
		for a := range wu {
			dot += (wu[a] / m) * (wr[a] / m)
		}
		if dot == 0 {
			return 0
		}
		t := m * 2 * hs
		return 0.5 * dot * t * t // ±Inf beyond the range: u or r dropped
	}
	r := 0
	for u := 1; u < len(dst); u++ {
		if dq(u, r) < 0 {
			r = u
		}
	}
	for u := range dst {
		dst[u] = base[u] - base[r] - max(dq(u, r), 0) // < 0 only by rounding
	}
	if q[r] == 0 {
		return base[r], nil // x at r's mean, however far from the others
	}
	return base[r] - 0.5*(q[r]*scale)*scale, nil // scale² alone may overflow where the product does not
}

// whiten returns L⁻¹v for the lower triangular L, by forward
// substitution.
func whiten(l *mat.TriDense, v []float64) []float64 {
	w := make([]float64, len(v))
	for i := range v {
		s := v[i]
		for j := range i {
			s -= l.At(i, j) * w[j]
		}
		w[i] = s / l.At(i, i)
	}
	return w
}

// sqNorm returns |w|², scaled so that it does not overflow before it
// must.
func sqNorm(w []float64) float64 {
	m := 0.0
	for _, x := range w {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) {
		return m * m
	}
	s := 0.0
	for _, x := range w {
		s += (x / m) * (x / m)
	}
	return s * m * m
}

// Params returns the number of free parameters of d: per configuration,
// the n means and the covariance by the form it was written in (a full
// matrix n(n+1)/2 numbers, a diagonal n, one variance 1); tied, one
// matrix for every configuration.
func (d *MultiNormal) Params() int {
	n, k := len(d.Children), len(d.Mean)
	if d.Form == TiedCov && d.Forms == nil {
		return k*n + n*(n+1)/2
	}
	p := 0
	for u := range k {
		p += n
		switch d.FormOf(u) {
		case DiagCov:
			p += n
		case SphericalCov:
			p++
		default:
			p += n * (n + 1) / 2
		}
	}
	return p
}

var errNotPD = &Error{Msg: "a covariance matrix is not positive definite"}

// checkMultiNormal reports a density whose means are not finite or whose
// covariances are not symmetric positive definite matrices of finite
// numbers.
func checkMultiNormal(errs *ErrorList, m *Model, d *MultiNormal) bool {
	n := len(d.Children)
	names := make([]string, n)
	for i, c := range d.Children {
		names[i] = Quote(m.Vars[c].Name)
	}
	what := "P(" + strings.Join(names, ", ")
	for u := range d.Mean {
		for _, x := range d.Mean[u] {
			if !finite(x) {
				errs.Add(d.Pos, "%s%s): the means must be finite numbers", what, configText(m, d.Parents, u))
				return false
			}
		}
		c := d.Cov[u]
		sym := mat.NewSymDense(n, nil)
		for i := range n {
			for j := range n {
				if !finite(c[i*n+j]) || c[i*n+j] != c[j*n+i] {
					errs.Add(d.Pos, "%s%s): the covariance matrix must be symmetric, of finite numbers", what, configText(m, d.Parents, u))
					return false
				}
				if j <= i {
					sym.SetSym(i, j, c[i*n+j])
				}
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			errs.Add(d.Pos, "%s%s): the covariance matrix is not positive definite (a variance is 0 or negative, or a variable is a linear combination of the others)", what, configText(m, d.Parents, u))
			return false
		}
	}
	return true
}

// configText names parent configuration u as " | A=a, B=b", or "" without
// parents.
func configText(m *Model, parents []VarID, u int) string {
	if len(parents) == 0 {
		return ""
	}
	parts := make([]string, len(parents))
	for k := len(parents) - 1; k >= 0; k-- {
		x := m.Vars[parents[k]]
		parts[k] = Quote(x.Name) + "=" + Quote(x.States[u%len(x.States)])
		u /= len(x.States)
	}
	return " | " + strings.Join(parts, ", ")
}

// SetMultiNormal gives the real variables children a joint normal density
// per configuration of the discrete parents, after checking it.
func (b *Builder) SetMultiNormal(d *MultiNormal) {
	m := b.m
	for _, c := range d.Children {
		if m.Dists[c] != nil {
			b.Errorf(d.Pos, "second distribution for %s (first at %s)", strconv.Quote(m.Vars[c].Name), m.Dists[c].Position())
			return
		}
	}
	if !checkMultiNormal(&b.Errs, m, d) {
		return
	}
	for _, c := range d.Children {
		m.Dists[c] = d
		m.Parents[c] = append([]VarID(nil), d.Parents...)
	}
}
