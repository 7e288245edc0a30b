package mixture

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// CovarianceType is the form of a Gaussian mixture's covariances.
type CovarianceType int

const (
	Full      CovarianceType = iota // each component has its own covariance matrix
	Diag                            // each component has its own diagonal covariance
	Spherical                       // each component has its own single variance
	Tied                            // all components share one covariance matrix
)

var covarianceNames = [...]string{Full: "full", Diag: "diag", Spherical: "spherical", Tied: "tied"}

func (c CovarianceType) String() string {
	return enumName(covarianceNames[:], c, "CovarianceType")
}

// ParseCovariance returns the covariance type named s: full, diag,
// spherical or tied.
func ParseCovariance(s string) (CovarianceType, error) {
	return parseEnum[CovarianceType](covarianceNames[:], s, "covariance type")
}

// enumName returns names[v], or typ(v) for a value without a name.
func enumName[T ~int](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum returns the value named s among names; what names the kind of
// value in the error, which lists the names.
func parseEnum[T ~int](names []string, s, what string) (T, error) {
	if i := slices.Index(names, s); i >= 0 {
		return T(i), nil
	}
	return 0, &Error{Err: ErrBadOption, Msg: fmt.Sprintf("unknown %s %q: want %s", what, s, orList(names))}
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// covLen returns the number of values of the covariances of k components
// of dimension d stored for type c.
func (c CovarianceType) covLen(k, d int) int {
	switch c {
	case Full:
		return k * d * d
	case Diag:
		return k * d
	case Spherical:
		return k
	case Tied:
		return d * d
	}
	panic("mixture: bad covariance type")
}

// NumParams returns the number of free parameters of a mixture of k
// components of dimension d with covariances of type c, as scikit-learn's
// _n_parameters: k-1 weights, kd means and the covariances' free values.
func (c CovarianceType) NumParams(k, d int) int {
	var cov int
	switch c {
	case Full:
		cov = k * d * (d + 1) / 2
	case Diag:
		cov = k * d
	case Spherical:
		cov = k
	case Tied:
		cov = d * (d + 1) / 2
	default:
		panic("mixture: bad covariance type")
	}
	return cov + k*d + k - 1
}

// gauss holds what the E-step needs of a mixture's parameters: for
// component j, log p(x, j) = logc[j] - |W_j x - wmu_j|²/2, where W_j is
// the inverse Cholesky factor of Σ_j (lower triangular d×d when tri, else
// diagonal, stored as d values) and wmu_j = W_j μ_j.
type gauss struct {
	k, d int
	tri  bool
	w    []float64 // k×d×d (tri) or k×d (diagonal)
	wmu  []float64 // k×d
	logc []float64 // k: log w_j - d/2 log 2π + log|W_j|
}

// whiten returns the gauss of the parameters, or an error if a covariance
// is not positive definite.
func whiten(c CovarianceType, k, d int, weights, means, cov []float64) (*gauss, error) {
	for _, v := range cov {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, &Error{Err: ErrOverflow, Msg: "a covariance overflows float64: rescale the data"}
		}
	}
	// A variance below float64's normal range has lost digits (data
	// whose spread is below about 1e-154, with a smaller reg-covar).
	stride, step := 1, 1
	if c == Full || c == Tied {
		stride, step = d*d, d+1
	}
	for t := 0; t < len(cov); t += stride {
		for u := t; u < min(t+stride, len(cov)); u += step {
			if v := cov[u]; v > 0 && v < 0x1p-1022 {
				return nil, &Error{Err: ErrUnderflow, Msg: fmt.Sprintf("a variance, %.3g, is below float64's normal range (2.2e-308), where it has lost digits: rescale the data", v)}
			}
		}
	}
	g := &gauss{k: k, d: d, tri: c == Full || c == Tied, wmu: make([]float64, k*d), logc: make([]float64, k)}
	half := 0.5 * float64(d) * math.Log(2*math.Pi)
	if g.tri {
		g.w = make([]float64, k*d*d)
		var ws [][]float64
		var logdet []float64
		nc := k
		if c == Tied {
			nc = 1
		}
		for j := range nc {
			floor := make([]float64, d) // per dimension: the largest of the components' floors
			for jj := range k {
				if c == Tied || jj == j {
					for l := range d {
						floor[l] = max(floor[l], varianceFloor(means[jj*d+l]))
					}
				}
			}
			w, ld, err := invChol(cov[j*d*d:(j+1)*d*d], d, j, floor)
			if err != nil {
				return nil, err
			}
			ws, logdet = append(ws, w), append(logdet, ld)
		}
		for j := range k {
			src, ld := ws[0], logdet[0]
			if c == Full {
				src, ld = ws[j], logdet[j]
			}
			wj := g.w[j*d*d : (j+1)*d*d]
			copy(wj, src)
			mu, out := means[j*d:(j+1)*d], g.wmu[j*d:(j+1)*d]
			for a := range d {
				s := 0.0
				for b := 0; b <= a; b++ {
					s += wj[a*d+b] * mu[b]
				}
				out[a] = s
			}
			g.logc[j] = math.Log(weights[j]) - half + ld
		}
		return g, nil
	}
	g.w = make([]float64, k*d)
	for j := range k {
		ld := 0.0
		for l := range d {
			v := cov[j] // spherical
			if c == Diag {
				v = cov[j*d+l]
			}
			if !(v > varianceFloor(means[j*d+l])) || math.IsInf(v, 0) {
				return nil, illDefined(j)
			}
			is := 1 / math.Sqrt(v)
			g.w[j*d+l] = is
			g.wmu[j*d+l] = is * means[j*d+l]
			ld += math.Log(is)
		}
		g.logc[j] = math.Log(weights[j]) - half + ld
	}
	return g, nil
}

// varianceFloor is the least variance a component can have along a
// dimension where its mean is mu: below it, the variance is rounding
// noise (the scatter of identical values about their mean, about
// (mu·ε)²), not a spread the data has, and the component has collapsed.
// With the default reg-covar (1e-6) it only matters for means beyond
// about 1e11.
func varianceFloor(mu float64) float64 {
	e := 16 * 0x1p-52 * math.Abs(mu)
	return e * e
}

// invChol returns the inverse W of the lower Cholesky factor L of the
// symmetric d×d matrix cov (row-major; only its lower triangle is read),
// as a row-major d×d lower-triangular matrix, and log|W| = -Σ log L_ll.
// A pivot L_ll² at or below floor[l] (see varianceFloor) is a collapsed
// component.
func invChol(cov []float64, d, comp int, floor []float64) ([]float64, float64, error) {
	sym := mat.NewSymDense(d, nil)
	for a := range d {
		for b := 0; b <= a; b++ {
			sym.SetSym(a, b, cov[a*d+b])
		}
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(sym); !ok {
		return nil, 0, illDefined(comp)
	}
	var l, w mat.TriDense
	ch.LTo(&l)
	for a := range d {
		if p := l.At(a, a); !(p*p > floor[a]) {
			return nil, 0, illDefined(comp)
		}
	}
	if err := w.InverseTri(&l); err != nil {
		return nil, 0, illDefined(comp)
	}
	out := make([]float64, d*d)
	ld := 0.0
	for a := range d {
		for b := 0; b <= a; b++ {
			out[a*d+b] = w.At(a, b)
		}
		ld -= math.Log(l.At(a, a))
	}
	if math.IsNaN(ld) || math.IsInf(ld, 0) {
		return nil, 0, illDefined(comp)
	}
	return out, ld, nil
}

func illDefined(comp int) error {
	return &Error{Err: ErrIllDefinedCovariance, Msg: fmt.Sprintf("the covariance of component %d is not positive definite (collapsed or too few rows): increase reg-covar, use fewer components or rescale the data", comp+1)}
}
