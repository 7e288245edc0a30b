package ir

import "math"

// This file computes the log densities of a real value under the normal
// distributions of a Gaussian's parent configurations, for the engines
// (real-valued evidence) and the classifiers alike.

// LogNorm returns −ln sd − ln √(2π): the log density of a normal
// distribution of standard deviation sd at its mean.
func LogNorm(sd float64) float64 { return -math.Log(sd) - 0.5*math.Log(2*math.Pi) }

// farZ is the |z| beyond which NormalLogDensities compares the
// distributions through their differences.
const farZ = 1e7

// NormalLogDensities sets dst[u] to ln N(x; mean[u], sd[u]) less shift,
// a term common to every u, and returns shift; lognorm[u] must be
// LogNorm(sd[u]). Near the means shift is 0. Far from them, where z²
// loses the means' digits (x = 1e154: x − 21 and x − 11 are the same
// float64) or overflows (x = 1e300), the distribution r nearest x (the
// smallest z_r²) is the reference: dst[u] = lognorm[u] − lognorm[r] −
// (z_u² − z_r²)/2, the difference of squares computed as (z_u − z_r)(z_u +
// z_r)/2 without subtracting x from itself, and shift is r's own log
// density, which may be −Inf. So the differences between the entries of
// dst, all that a posterior needs, are right wherever x is, and no entry
// is +Inf or NaN.
func NormalLogDensities(x float64, mean, sd, lognorm, dst []float64) (shift float64) {
	far := false
	for u := range dst {
		if z := (x - mean[u]) / sd[u]; !(math.Abs(z) < farZ) {
			far = true
		}
	}
	if !far {
		for u := range dst {
			z := (x - mean[u]) / sd[u]
			dst[u] = lognorm[u] - 0.5*z*z
		}
		return 0
	}
	r := 0
	for u := 1; u < len(dst); u++ {
		if halfDiff(x, mean, sd, u, r) < 0 {
			r = u
		}
	}
	for u := range dst {
		dst[u] = lognorm[u] - lognorm[r] - max(halfDiff(x, mean, sd, u, r), 0) // < 0 only by rounding
	}
	z := (x - mean[r]) / sd[r]
	return lognorm[r] - 0.5*z*z
}

// halfDiff returns (z_u² − z_r²)/2 for the value x.
func halfDiff(x float64, mean, sd []float64, u, r int) float64 {
	if mean[u] == mean[r] && sd[u] == sd[r] {
		return 0
	}
	iu, ir := 1/sd[u], 1/sd[r]
	a := x*(iu-ir) - (mean[u]*iu - mean[r]*ir)
	b := x*(iu+ir) - (mean[u]*iu + mean[r]*ir)
	d := 0.5 * a * b
	if !math.IsNaN(d) {
		return d
	}
	// ∞ − ∞ in a or b: compare |z| in log space, where it does not
	// overflow (ln|x − mean| − ln sd).
	lz := func(u int) float64 {
		return math.Log(math.Abs(x/2-mean[u]/2)) + math.Ln2 - math.Log(sd[u])
	}
	switch lu, lr := lz(u), lz(r); {
	case lu > lr:
		return math.Inf(1)
	case lu < lr:
		return math.Inf(-1)
	}
	return 0
}

// LogDensities returns the parents of the density d (a *Gaussian or a
// *MultiNormal) and, for each of their configurations (row-major), the
// log density of the values obs gives d's children, less shift, a term
// common to every configuration, which it also returns. obs may hold
// values of other variables; a Gaussian's child must be among them, and at
// least one of a joint density's children, whose marginal density is
// used (see NormalLogDensities and MultiNormal.LogDensities). A linear
// Gaussian density's means are taken at its real parents' values in obs:
// one missing is an error of kind ErrUnobservedRealParent.
func LogDensities(d Dist, obs []RealObs) (parents []VarID, l []float64, shift float64, err error) {
	value := func(v VarID) (float64, bool) {
		for _, o := range obs {
			if o.Var == v {
				return o.Value, true
			}
		}
		return 0, false
	}
	switch d := d.(type) {
	case *Gaussian:
		x, ok := value(d.Child)
		if !ok {
			panic("ir: LogDensities: no value for the density's variable")
		}
		lognorm := make([]float64, len(d.SD))
		for u, sd := range d.SD {
			lognorm[u] = LogNorm(sd)
		}
		mean := d.Mean
		if len(d.Real) > 0 {
			// A linear Gaussian density: each configuration's mean given
			// the real parents' values, which obs must hold.
			xs := make([]float64, len(d.Real))
			for j, p := range d.Real {
				if xs[j], ok = value(p); !ok {
					return nil, nil, 0, &Error{Pos: d.Pos, Err: ErrUnobservedRealParent,
						Msg: "a linear Gaussian density's likelihood needs the values of its real parents, and one is not observed"}
				}
			}
			mean = make([]float64, len(d.Mean))
			for u := range mean {
				mean[u] = d.Mean[u]
				for j, c := range d.Coef[u*len(d.Real) : (u+1)*len(d.Real)] {
					mean[u] += c * xs[j]
				}
			}
		}
		l = make([]float64, len(d.Mean))
		return d.Parents, l, NormalLogDensities(x, mean, d.SD, lognorm, l), nil
	case *MultiNormal:
		var idx []int
		var xs []float64
		for i, c := range d.Children {
			if x, ok := value(c); ok {
				idx = append(idx, i)
				xs = append(xs, x)
			}
		}
		if idx == nil {
			panic("ir: LogDensities: no value for the density's variables")
		}
		l = make([]float64, len(d.Mean))
		shift, err = d.LogDensities(idx, xs, l)
		return d.Parents, l, shift, err
	}
	panic("ir: LogDensities: not a density")
}

// LogDensitiesAt is LogDensities over the parent configurations keep
// alone (indices in d's row-major order, increasing): l still has an
// entry per configuration, −Inf outside keep, and shift is common to those
// of keep, the nearest of which is the reference. Far from every mean, the
// differences between the configurations of keep are then kept where
// those to the others overflow (x = 1e300 under normal(0, 0.01), observed
// with that configuration, and normal(0.5, 1)). keep must not be empty.
func LogDensitiesAt(d Dist, obs []RealObs, keep []int) (parents []VarID, l []float64, shift float64, err error) {
	var sub Dist
	n := 0
	switch d := d.(type) {
	case *Gaussian:
		g := *d
		n = len(d.Mean)
		g.Mean, g.SD = make([]float64, len(keep)), make([]float64, len(keep))
		if r := len(d.Real); r > 0 {
			g.Coef = make([]float64, len(keep)*r)
		}
		for k, u := range keep {
			g.Mean[k], g.SD[k] = d.Mean[u], d.SD[u]
			if r := len(d.Real); r > 0 {
				copy(g.Coef[k*r:(k+1)*r], d.Coef[u*r:(u+1)*r])
			}
		}
		parents, sub = d.Parents, &g
	case *MultiNormal:
		g := *d
		n = len(d.Mean)
		g.Mean, g.Cov = make([][]float64, len(keep)), make([][]float64, len(keep))
		for k, u := range keep {
			g.Mean[k], g.Cov[k] = d.Mean[u], d.Cov[u]
		}
		parents, sub = d.Parents, &g
	default:
		panic("ir: LogDensitiesAt: not a density")
	}
	_, lk, shift, err := LogDensities(sub, obs)
	if err != nil {
		return nil, nil, 0, err
	}
	l = make([]float64, n)
	for u := range l {
		l[u] = math.Inf(-1)
	}
	for k, u := range keep {
		l[u] = lk[k]
	}
	return parents, l, shift, nil
}
