package ir

import (
	"errors"
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
// where the squared distances overflow: the distances are computed on
// x − mean scaled by the largest |x − mean|, and the nearest configuration
// is the reference (shift, its own log density, may then be −Inf). It
// returns an error if the covariance of the subset is not positive
// definite (which validation rules out for the whole).
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
	cov := mat.NewSymDense(k, nil)
	diff := mat.NewVecDense(k, nil)
	z := mat.NewVecDense(k, nil)
	var ch mat.Cholesky
	for u := range d.Mean {
		for a, i := range idx {
			diff.SetVec(a, half(a, i, u)/scale)
			for b, j := range idx[:a+1] {
				cov.SetSym(a, b, d.Cov[u][i*n+j])
			}
		}
		if !ch.Factorize(cov) {
			return 0, errNotPD
		}
		if err := ch.SolveVecTo(z, diff); err != nil {
			// An ill-conditioned covariance (variances 1e-300 and 1e300)
			// is still positive definite: gonum solves and warns.
			var c mat.Condition
			if !errors.As(err, &c) {
				return 0, err
			}
		}
		q[u] = mat.Dot(z, diff)
		base[u] = -0.5 * (float64(k)*math.Log(2*math.Pi) + ch.LogDet())
	}
	scale *= 2 // the distances are (x − mean)/scale
	s2 := scale * scale
	far := math.IsInf(s2, 0)
	for u := range q {
		far = far || math.IsInf(s2*q[u], 0)
	}
	if !far {
		for u := range dst {
			dst[u] = base[u] - 0.5*s2*q[u]
		}
		return 0, nil
	}
	r := 0
	for u := range q {
		if q[u] < q[r] {
			r = u
		}
	}
	for u := range dst {
		dst[u] = base[u] - base[r]
		if dq := q[u] - q[r]; dq != 0 {
			dst[u] -= 0.5 * dq * scale * scale // +Inf·… only drops u, never r
		}
	}
	if q[r] == 0 {
		return base[r], nil // x at r's mean, however far from the others
	}
	return base[r] - 0.5*q[r]*scale*scale, nil
}

// Params returns the number of free parameters of d: the means, and the
// covariances by their form (a full matrix n(n+1)/2 numbers, a diagonal n,
// a spherical one 1, per configuration; tied, one matrix for all).
func (d *MultiNormal) Params() int {
	n, k := len(d.Children), len(d.Mean)
	switch d.Form {
	case DiagCov:
		return k * (n + n)
	case SphericalCov:
		return k * (n + 1)
	case TiedCov:
		return k*n + n*(n+1)/2
	}
	return k * (n + n*(n+1)/2)
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
