package hypothesis

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/pbl-lang/pbl/ir"
)

// FitMethod is how FitML found the ML hypothesis.
type FitMethod int

const (
	// LeastSquares: normal(MEAN, SD) with MEAN linear in the parameters
	// (Mitchell §6.4: h_ML minimises the sum of squared errors), solved
	// in closed form by QR; a parameter SD gets its ML value sqrt(SSE/n).
	LeastSquares FitMethod = iota
	// SigmoidUnit: bernoulli(sigmoid(LINEAR)), Mitchell §6.5's sigmoid
	// unit trained by batch gradient ascent on ln P(D|h) with the rule
	// Δw_k = η Σ_i (d_i − h(x_i)) x_ik.
	SigmoidUnit
)

func (m FitMethod) String() string {
	if m == SigmoidUnit {
		return "sigmoid unit (gradient ascent)"
	}
	return "least squares"
}

// FitOptions are the options of FitML's gradient ascent; the zero value
// gives the defaults.
type FitOptions struct {
	// Eta is the learning rate η; 0 means 4/λ_max(XᵀX), the step 1/L for
	// the gradient's Lipschitz bound L = λ_max/4, with which every step
	// increases the likelihood.
	Eta float64
	// MaxIter bounds the iterations; 0 means 100000.
	MaxIter int
	// Tol stops the ascent when no weight moves by more than Tol·(1 +
	// max |w|) in an iteration; 0 means 1e-10.
	Tol float64
	// Progress, if not nil, is called after each iteration with its
	// number (from 1) and the cross-entropy −Σ d ln h + (1−d) ln(1−h) of
	// the weights before it.
	Progress func(iter int, crossEntropy float64)
}

// Fit is an ML hypothesis of a space with continuous parameters.
type Fit struct {
	Method        FitMethod
	Params        []float64 // the ML values, in the order of Space.Params
	LogLikelihood float64   // ln P(D|h_ML), every constant included

	SSE float64 // LeastSquares: Σ (d − mean)²
	SD  float64 // LeastSquares: the standard deviation (its ML value if a parameter)

	// SigmoidUnit: CrossEntropy[t] is the cross-entropy after t
	// iterations (CrossEntropy[0] at w = 0), Iterations how many ran and
	// Converged whether the tolerance was met (false when MaxIter ran
	// out). Separable data, whose ML weights are infinite, are an error
	// (ErrNotIdentifiable), not a Fit.
	CrossEntropy []float64
	Iterations   int
	Converged    bool
	Eta          float64
}

// FitML finds the ML hypothesis of space s of model m given data d when
// every parameter is continuous (`in real`): a normal observation whose
// mean is linear in the parameters, with a standard deviation that is a
// positive number or a parameter (least squares), or a bernoulli
// observation of sigmoid(linear) (gradient ascent, options opts, which may
// be nil). Any other space is an error (ErrNoClosedForm), as are a
// gridded parameter (ErrContinuous) and data that do not determine the
// parameters (ErrNotIdentifiable).
func FitML(ctx context.Context, s *ir.Space, m *ir.Model, d *Data, opts *FitOptions) (*Fit, error) {
	fail := func(pos ir.Pos, kind error, format string, args ...any) (*Fit, error) {
		return nil, ir.ErrorList{{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: kind}}
	}
	if s.Concept != nil {
		return fail(s.Pos, ErrNoClosedForm, "%s is a concept space: it has no parameters to fit", s.Name)
	}
	for _, sp := range s.Params {
		if sp.Values != nil {
			return fail(sp.Pos, ErrContinuous, "parameter %s of %s is on a grid: FitML fits spaces whose parameters are all continuous (in real)", sp.Name, s.Name)
		}
	}
	if len(s.Obs) != 1 {
		return fail(s.Pos, ErrNoClosedForm, "%s has %d observations: the ML fit is for one, normal with a linear mean or bernoulli(sigmoid(linear))", s.Name, len(s.Obs))
	}
	if len(d.Cols) != len(s.Columns) {
		return nil, fmt.Errorf("hypothesis: data with %d columns for space %s, which reads %d", len(d.Cols), s.Name, len(s.Columns))
	}
	if opts == nil {
		opts = &FitOptions{}
	}
	ob := s.Obs[0]
	c := &compiler{s: s}
	args := make([]*node, len(ob.Args))
	for i, a := range ob.Args {
		args[i] = c.compile(a)
		args[i].bindColumns(d.Cols, d.Len())
	}
	y := d.Cols[ob.Column][:d.Len()]
	switch ob.Family {
	case ir.FamilyNormal:
		sd, sdParam := args[1], -1
		switch {
		case sd.tag == tParam:
			sdParam = sd.idx
		case sd.kind != kConst:
			return fail(ob.Args[1].Position(), ErrNoClosedForm, "the standard deviation must be a number or a parameter for a closed-form fit")
		case !(sd.val > 0) || math.IsInf(sd.val, 0):
			return fail(ob.Args[1].Position(), ErrDomain, "the standard deviation is %g: it must be finite and > 0", sd.val)
		}
		x, off, err := design(s, ob.Args[0], args[0], d, sdParam)
		if err != nil {
			return nil, err
		}
		return leastSquares(s, ob, x, off, y, sd, sdParam)
	case ir.FamilyBernoulli:
		if args[0].tag != tCall || args[0].fn != ir.FnSigmoid {
			return fail(ob.Args[0].Position(), ErrNoClosedForm, "the probability must be sigmoid(a linear expression of the parameters) for the sigmoid unit's fit")
		}
		x, off, err := design(s, ob.Args[0].(*ir.Call).Args[0], args[0].x, d, -1)
		if err != nil {
			return nil, err
		}
		return sigmoidUnit(ctx, s, x, off, y, opts)
	}
	return fail(ob.Pos, ErrNoClosedForm, "no ML fit for the %s family", ob.Family)
}

// design writes a linear expression of the parameters as off + X·w: X's
// column k holds the coefficient of parameter k in each row (for the
// parameters other than skip), off the terms without a parameter.
func design(s *ir.Space, e ir.Expr, n *node, d *Data, skip int) (*mat.Dense, []float64, error) {
	rows := d.Len()
	fail := func(pos ir.Pos, kind error, format string, args ...any) (*mat.Dense, []float64, error) {
		return nil, nil, ir.ErrorList{{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: kind}}
	}
	terms, ok := linearize(n, true)
	if !ok {
		return fail(e.Position(), ErrNoClosedForm, "the expression is not linear in the parameters: no closed-form ML fit")
	}
	np := len(s.Params)
	cols := make([][]float64, np)
	off := make([]float64, rows)
	for _, t := range terms {
		v := t.columnVector(rows)
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fail(e.Position(), ErrDomain, "a term of the expression is %g at row %d%s", x, i+1, posText(d.Pos(i, -1)))
			}
		}
		switch {
		case len(t.a) == 0:
			for i := range off {
				off[i] += t.coef * v[i]
			}
		case len(t.a) == 1 && !t.a[0].inv && t.a[0].n.tag == tParam && t.a[0].n.idx != skip:
			k := t.a[0].n.idx
			if cols[k] == nil {
				cols[k] = make([]float64, rows)
			}
			for i := range v {
				cols[k][i] += t.coef * v[i]
			}
		default:
			return fail(e.Position(), ErrNoClosedForm, "the expression is not linear in the parameters (a term is a product of parameters, a parameter divides, or the standard deviation's parameter appears): no closed-form ML fit")
		}
	}
	for k, sp := range s.Params {
		if k != skip && cols[k] == nil {
			return fail(sp.Pos, ErrNotIdentifiable, "parameter %s does not appear in the expression: the data do not determine it", sp.Name)
		}
	}
	x := mat.NewDense(max(rows, 1), max(np, 1), nil)
	for k, c := range cols {
		if c != nil && rows > 0 {
			x.SetCol(k, c)
		}
	}
	return x, off, nil
}

func posText(p ir.Pos) string {
	if p.IsValid() {
		return " (" + p.String() + ")"
	}
	return ""
}

func leastSquares(s *ir.Space, ob *ir.Observation, x *mat.Dense, off, y []float64, sd *node, sdParam int) (*Fit, error) {
	rows := len(y)
	np := len(s.Params)
	fit := &Fit{Method: LeastSquares, Params: make([]float64, np)}
	// The columns of the free parameters (all but the standard deviation's).
	var free []int
	for k := range np {
		if k != sdParam {
			free = append(free, k)
		}
	}
	notIdent := func(format string, args ...any) (*Fit, error) {
		return nil, ir.ErrorList{{Pos: ob.Pos, Msg: fmt.Sprintf(format, args...), Err: ErrNotIdentifiable}}
	}
	if rows < len(free) || rows == 0 {
		return notIdent("%s cannot determine %s", ir.Plural(rows, "row"), ir.Plural(len(free), "parameter"))
	}
	var cols [][]float64 // the free parameters' columns of x
	target := make([]float64, rows)
	for i := range target {
		target[i] = y[i] - off[i]
	}
	if len(free) > 0 {
		a := mat.NewDense(rows, len(free), nil)
		for j, k := range free {
			for i := range rows {
				a.Set(i, j, x.At(i, k))
			}
		}
		cols = make([][]float64, len(free))
		for j, k := range free {
			cols[j] = mat.Col(nil, k, x)[:rows]
		}
		var qr mat.QR
		qr.Factorize(a)
		var w mat.VecDense
		if err := qr.SolveVecTo(&w, false, mat.NewVecDense(rows, target)); err != nil {
			return notIdent("the columns of the linear mean are collinear in the data: the least-squares parameters are not unique (%v)", err)
		}
		// Iterative refinement: the QR solution's rounding, ε|w|, is
		// enough to leave residuals of 1e8 on data of 1e24 that lie on
		// the mean, which a standard deviation of 1 makes ln P = −1e16;
		// corrections solved from residuals computed in twice the
		// working precision (halfResidual) remove it.
		r := mat.NewVecDense(rows, nil)
		ws := make([]float64, len(free))
		var dw mat.VecDense
		for range 3 {
			for j := range free {
				ws[j] = w.AtVec(j)
			}
			for i := range rows {
				r.SetVec(i, lsResidual(y, off, cols, ws, i))
			}
			if qr.SolveVecTo(&dw, false, r) != nil {
				break
			}
			moved := false
			for j := range free {
				old := w.AtVec(j)
				w.SetVec(j, old+2*dw.AtVec(j)) // r holds the residuals halved
				moved = moved || w.AtVec(j) != old
			}
			if !moved {
				break
			}
		}
		for j, k := range free {
			fit.Params[k] = w.AtVec(j)
		}
	}
	half := make([]float64, rows) // the residuals halved, so that they do not overflow
	mag := make([]float64, rows)  // (|d_i| + |offset_i| + Σ_k |x_ik w_k|)/2: the scale of the residual's rounding
	ws := make([]float64, len(free))
	for j, k := range free {
		ws[j] = fit.Params[k]
	}
	for i := range rows {
		m := math.Abs(y[i]/2) + math.Abs(off[i]/2)
		for j, k := range free {
			m += math.Abs(ws[j] * (x.At(i, k) / 2))
		}
		half[i], mag[i] = lsResidual(y, off, cols, ws, i), m
	}
	res := half
	// The norms are scaled (gonum's L2 norm), so that residuals beyond
	// 1e154 do not overflow; the log-likelihood takes the residuals
	// divided by SD, which keep their digits whatever its scale.
	norm := 2 * floats.Norm(res, 2)
	fit.SSE = norm * norm
	n := float64(rows)
	fit.SD = sd.val
	if sdParam >= 0 {
		fit.SD = norm / math.Sqrt(n)
		fit.Params[sdParam] = fit.SD
		scale := 2 * floats.Norm(mag, 2) / math.Sqrt(n)
		if !(fit.SD > exactFit*scale) {
			if fit.SD == 0 {
				return notIdent("the data lie exactly on the fitted mean: the ML standard deviation is 0 and the likelihood has no maximum")
			}
			return notIdent("the data lie on the fitted mean to within rounding: the residuals (root mean square %.3g) are rounding noise beside values of magnitude %.3g, so the ML standard deviation is 0 and the likelihood has no maximum", fit.SD, scale)
		}
		// SSE/SD² = n exactly.
		fit.LogLikelihood = -n*math.Log(fit.SD) - n/2*(ln2Pi+1)
	} else {
		var acc float64 // Σ (r_i/(2 SD))²
		for _, h := range half {
			z := h / fit.SD
			acc += z * z
		}
		fit.LogLikelihood = -n*math.Log(fit.SD) - n/2*ln2Pi - 2*acc
	}
	for k, w := range fit.Params {
		if !finite(w) {
			return nil, ir.ErrorList{{Pos: ob.Pos, Msg: fmt.Sprintf("the least-squares value of %s is %g: the data are beyond float64's range for this fit", s.Params[k].Name, w), Err: ErrRange}}
		}
	}
	if !finite(fit.LogLikelihood) {
		return nil, ir.ErrorList{{Pos: ob.Pos, Msg: fmt.Sprintf("ln P(D|h) of the least-squares fit is below float64's range (−1.8e308): the standard deviation %g is tiny beside the residuals (root mean square %g)", fit.SD, norm/math.Sqrt(n)), Err: ErrRange}}
	}
	fit.Converged = true
	return fit, nil
}

// lsResidual returns row i's residual halved, (d_i − offset_i − Σ_j
// w_j·cols[j][i])/2, in twice the working precision (halfResidual).
func lsResidual(y, off []float64, cols [][]float64, w []float64, i int) float64 {
	s, c := twoSum(y[i]/2, -off[i]/2)
	for j, wj := range w {
		s, c = dot2(s, c, wj, cols[j][i]/2)
	}
	return s + c
}

// exactFit is the ratio of the ML standard deviation to the data's
// magnitude below which the residuals are rounding noise (a few hundred
// ulps of each value): the data lie on the fitted mean, and the ML
// standard deviation is 0, not the noise's root mean square.
const exactFit = 0x1p-40

// crossEntropy returns −Σ d ln h + (1−d) ln(1−h) for h = sigmoid(z),
// from z without loss of digits.
func crossEntropy(z, y []float64) float64 {
	var e float64
	for i, v := range y {
		if v == 1 {
			e += softplus(-z[i])
		} else {
			e += softplus(z[i])
		}
	}
	return e
}

func sigmoidUnit(ctx context.Context, s *ir.Space, x *mat.Dense, off, y []float64, opts *FitOptions) (*Fit, error) {
	rows, np := len(y), len(s.Params)
	fit := &Fit{Method: SigmoidUnit, Params: make([]float64, np), Eta: opts.Eta}
	maxIter, tol := opts.MaxIter, opts.Tol
	if maxIter <= 0 {
		maxIter = 100000
	}
	if tol <= 0 {
		tol = 1e-10
	}
	if rows == 0 {
		return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: "no rows: the data do not determine the parameters", Err: ErrNotIdentifiable}}
	}
	// Row-major copies for the loops.
	xs := make([]float64, rows*np)
	for i := range rows {
		for k := range np {
			xs[i*np+k] = x.At(i, k)
		}
	}
	if fit.Eta <= 0 {
		var g mat.SymDense
		g.SymOuterK(1, x.Slice(0, rows, 0, np))
		var eig mat.EigenSym
		if !eig.Factorize(&g, false) {
			return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: "cannot choose a learning rate: XᵀX has no eigendecomposition; set η", Err: ErrNotIdentifiable}}
		}
		vals := eig.Values(nil)
		lmax := vals[len(vals)-1]
		if !(lmax > 0) {
			return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: "every coefficient of the parameters is 0 in the data: they are not determined", Err: ErrNotIdentifiable}}
		}
		fit.Eta = 4 / lmax
	}
	w := fit.Params
	z := make([]float64, rows)
	grad := make([]float64, np)
	setZ := func() {
		for i := range rows {
			v := off[i]
			row := xs[i*np : i*np+np]
			for k, xv := range row {
				v += xv * w[k]
			}
			z[i] = v
		}
	}
	setZ()
	e := crossEntropy(z, y)
	fit.CrossEntropy = append(fit.CrossEntropy, e)
	for it := 1; it <= maxIter; it++ {
		if it%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		clear(grad)
		for i := range rows {
			r := y[i] - sigmoid(z[i])
			row := xs[i*np : i*np+np]
			for k, xv := range row {
				grad[k] += r * xv
			}
		}
		var step, size float64
		for k := range w {
			dw := fit.Eta * grad[k]
			w[k] += dw
			step = max(step, math.Abs(dw))
			size = max(size, math.Abs(w[k]))
		}
		if opts.Progress != nil {
			opts.Progress(it, e)
		}
		setZ()
		e = crossEntropy(z, y)
		fit.CrossEntropy = append(fit.CrossEntropy, e)
		fit.Iterations = it
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: fmt.Sprintf("gradient ascent diverged at iteration %d with η = %g: choose a smaller learning rate", it, fit.Eta), Err: ErrNotIdentifiable}}
		}
		if step <= tol*(1+size) {
			fit.Converged = true
			break
		}
	}
	switch {
	case separates(xs, np, w, y, 0):
		return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: fmt.Sprintf("the data are linearly separable: %s classifies every row, and the likelihood rises toward 1 as the weights grow along it, so it has no maximum (cross-entropy %.3g after %d iterations)", hypText(s, w), e, fit.Iterations), Err: ErrNotIdentifiable}}
	case !fit.Converged && separates(xs, np, w, y, quasiTies):
		return nil, ir.ErrorList{{Pos: s.Obs[0].Pos, Msg: fmt.Sprintf("the data are separable but for rows on the boundary (quasi-complete separation): %s classifies every other row, and the likelihood rises as the weights grow along it, so it has no maximum (cross-entropy %.3g after %d iterations)", hypText(s, w), e, fit.Iterations), Err: ErrNotIdentifiable}}
	}
	fit.LogLikelihood = -e
	return fit, nil
}

// quasiTies is the |x_i·w|/(|x_i| |w|) below which a row that the
// weights of a sigmoid unit stopped by its iteration limit put on the
// wrong side counts as on the boundary (a tie), for the test of
// quasi-complete separation.
const quasiTies = 0x1p-30

// separates reports whether the weights w (the parameters' part of the
// linear expression, X w) put every row with d = 1 on the positive side
// and every row with d = 0 on the negative, strictly, but for rows with
// |x_i·w| ≤ ties·|x_i| |w| (with ties = 0: none), and at least one row
// strictly: a certificate that the data are (quasi-completely) linearly
// separable, so that ln P(D|h) rises along t·w as t grows and has no
// maximum (Albert and Anderson, 1984).
func separates(xs []float64, np int, w, y []float64, ties float64) bool {
	nw := floats.Norm(w, 2)
	strict := false
	for i, d := range y {
		row := xs[i*np : i*np+np]
		var v float64
		for k, xv := range row {
			v += xv * w[k]
		}
		switch {
		case d == 1 && v > 0 || d != 1 && v < 0:
			strict = true
		case ties > 0 && math.Abs(v) <= ties*floats.Norm(row, 2)*nw:
		default:
			return false
		}
	}
	return strict
}
