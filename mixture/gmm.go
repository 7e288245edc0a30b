package mixture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pbl-lang/pbl/internal/input"
)

// Init is how a Gaussian mixture fit chooses its first parameters.
type Init int

const (
	InitKMeans   Init = iota // k-means (k-means++ seeded, one restart) labels, as scikit-learn's 'kmeans'
	InitKMeansPP             // the k-means++ seeds alone, as scikit-learn's 'k-means++'
	InitRandom               // random responsibilities, as scikit-learn's 'random'
	InitGiven                // the parameters in GMMOptions.Given
)

var initNames = [...]string{InitKMeans: "kmeans", InitKMeansPP: "k-means++", InitRandom: "random", InitGiven: "given"}

func (i Init) String() string { return enumName(initNames[:], i, "Init") }

// ParseInit returns the initialisation named s: kmeans, k-means++ or
// random (given parameters are passed as GMMOptions.Given).
func ParseInit(s string) (Init, error) {
	return parseEnum[Init](initNames[:InitGiven], s, "initialisation")
}

// GMMOptions configures [FitGMM]. Start from [DefaultGMMOptions].
type GMMOptions struct {
	K          int            // the number of components, at least 1
	Covariance CovarianceType // the form of the covariances
	Init       Init           // how each restart starts
	Given      *GMM           // the first parameters for InitGiven (Weights, Means, Covariances), or nil
	NInit      int            // restarts, at least 1; the highest final lower bound is kept
	MaxIter    int            // EM iterations per restart, at least 1
	Tol        float64        // stop when the mean log-likelihood changes by less; 0 runs MaxIter
	RegCovar   float64        // added to the covariances' diagonal, ≥ 0
	Seed       uint64         // the random seed
	Workers    int            // goroutines; 0 for GOMAXPROCS

	// Progress, if not nil, is called after each E-step with the restart
	// (0 to NInit-1), the iteration (from 1) and the mean log-likelihood
	// of the parameters before that iteration's M-step (the value
	// appended to Trace). After the last restart the best three continue
	// (see the package documentation): their calls follow, restart by
	// restart, their iterations counting on; split and merge (see the
	// package documentation) reports nothing. It is called from the goroutine that called
	// FitGMM, and nothing it does changes the fit.
	Progress func(restart, iteration int, meanLogLik float64)
}

// DefaultGMMOptions returns scikit-learn's defaults for k components:
// full covariances, k-means initialisation, one restart, 100 iterations,
// tol 1e-3, reg-covar 1e-6, seed 0.
func DefaultGMMOptions(k int) GMMOptions {
	return GMMOptions{K: k, NInit: 1, MaxIter: 100, Tol: 1e-3, RegCovar: 1e-6}
}

func (o *GMMOptions) check(d int) error {
	switch {
	case o.Covariance < Full || o.Covariance > Tied:
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("bad covariance type %d", int(o.Covariance))}
	case o.Init < InitKMeans || o.Init > InitGiven:
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("bad initialisation %d", int(o.Init))}
	}
	if err := checkRuns(o.NInit, o.MaxIter, o.Tol); err != nil {
		return err
	}
	switch {
	case !(o.RegCovar >= 0) || math.IsInf(o.RegCovar, 0):
		return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("reg-covar %v: want a finite number at least 0", o.RegCovar)}
	}
	if o.Init == InitGiven {
		g := o.Given
		if g == nil {
			return &Error{Err: ErrBadOption, Msg: "initialisation from given parameters, but none are given"}
		}
		if len(g.Weights) != o.K || len(g.Means) != o.K*d || len(g.Covariances) != o.Covariance.covLen(o.K, d) {
			return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("the given parameters do not fit %d %s components of dimension %d", o.K, o.Covariance, d)}
		}
		s := 0.0
		for _, w := range g.Weights {
			if !(w > 0) {
				return &Error{Err: ErrBadOption, Msg: "a given weight is not positive"}
			}
			s += w
		}
		if !(math.Abs(s-1) <= 1e-6) {
			return &Error{Err: ErrBadOption, Msg: fmt.Sprintf("the given weights sum to %v, not 1", s)}
		}
		for _, v := range append(slices.Clip(g.Means), g.Covariances...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &Error{Err: ErrBadOption, Msg: "a given mean or covariance is not finite"}
			}
		}
	}
	return nil
}

// GMM is a fitted Gaussian mixture and the record of its fit.
type GMM struct {
	K, D        int
	Covariance  CovarianceType
	Weights     []float64 // K, summing to 1
	Means       []float64 // K×D, row-major
	Covariances []float64 // full: K×D×D; diag: K×D variances; spherical: K variances; tied: D×D

	N             int       // the number of rows fitted
	LogLikelihood float64   // the mean log-likelihood per row of the final parameters (scikit-learn's score)
	LowerBound    float64   // the last value of Trace, by which restarts are compared
	Trace         []float64 // the mean log-likelihood before each M-step of the kept restart, its continuation included (or of the last split-and-merge move kept)
	Iterations    int       // EM iterations of the kept restart, its continuation to tol/1000 included (or of the last move kept)
	Converged     bool      // the kept restart (or move) met Tol before MaxIter iterations
	NInit         int       // the number of restarts run
}

// CovarianceMatrix returns the d×d covariance matrix (row-major) of
// component j of g, whatever the form it was fitted in.
func (g *GMM) CovarianceMatrix(j int) []float64 {
	d := g.D
	c := make([]float64, d*d)
	switch g.Covariance {
	case Full:
		copy(c, g.Covariances[j*d*d:(j+1)*d*d])
	case Tied:
		copy(c, g.Covariances[:d*d])
	case Diag:
		for a := range d {
			c[a*d+a] = g.Covariances[j*d+a]
		}
	case Spherical:
		for a := range d {
			c[a*d+a] = g.Covariances[j]
		}
	}
	return c
}

// NumParams returns the number of free parameters of g.
func (g *GMM) NumParams() int { return g.Covariance.NumParams(g.K, g.D) }

// BIC returns the Bayesian information criterion of g on its data,
// -2 n ℓ + p ln n, as scikit-learn's bic.
func (g *GMM) BIC() float64 {
	n := float64(g.N)
	return -2*g.LogLikelihood*n + float64(g.NumParams())*math.Log(n)
}

// AIC returns the Akaike information criterion of g on its data,
// -2 n ℓ + 2p, as scikit-learn's aic.
func (g *GMM) AIC() float64 {
	return -2*g.LogLikelihood*float64(g.N) + 2*float64(g.NumParams())
}

// Mean returns the mean of component j.
func (g *GMM) Mean(j int) []float64 { return g.Means[j*g.D : (j+1)*g.D] }

// Score returns the mean log-likelihood per row of x under g.
func (g *GMM) Score(x *Matrix, workers int) (float64, error) {
	if x.Cols != g.D {
		return 0, &Error{Err: ErrBadOption, Msg: fmt.Sprintf("%s for a mixture of dimension %d", plural(x.Cols, "column"), g.D)}
	}
	if err := x.check(1); err != nil {
		return 0, err
	}
	gs, err := whiten(g.Covariance, g.K, g.D, g.Weights, g.Means, g.Covariances)
	if err != nil {
		return 0, err
	}
	e := newEM(x, GMMOptions{K: g.K, Covariance: g.Covariance, Workers: workers})
	return e.score(gs)
}

// FitGMM fits a Gaussian mixture of opt.K components to the rows of x by
// EM, keeping the best of opt.NInit restarts after the best three have
// continued to a tighter tolerance, then improving it by split-and-merge
// moves (see the package documentation).
func FitGMM(x *Matrix, opt GMMOptions) (*GMM, error) {
	if err := x.check(opt.K); err != nil {
		return nil, err
	}
	if err := opt.check(x.Cols); err != nil {
		return nil, err
	}
	if err := x.checkSpread(opt.RegCovar); err != nil {
		return nil, err
	}
	if err := checkSize(x, opt); err != nil {
		return nil, err
	}
	e := newEM(x, opt)
	var runs []*emRun
	var lastErr error
	for i := range opt.NInit {
		r, err := e.start(i)
		if err == nil {
			r.g.Converged, err = e.iterate(r, opt.Tol, opt.MaxIter)
		}
		if err != nil {
			// A restart whose covariances collapse is skipped, as long
			// as another succeeds.
			lastErr = err
			continue
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, lastErr
	}
	// The best restarts by their last trace value (the first of equal
	// ones) continue to a tighter tolerance.
	slices.SortStableFunc(runs, func(a, b *emRun) int {
		switch {
		case a.g.LowerBound > b.g.LowerBound:
			return -1
		case a.g.LowerBound < b.g.LowerBound:
			return 1
		}
		return 0
	})
	for _, r := range runs[:min(polishTop, len(runs))] {
		if r.g.Iterations == opt.MaxIter {
			continue
		}
		if _, err := e.iterate(r, opt.Tol*polishTol, opt.MaxIter); err != nil {
			r.failed = true
		}
	}
	var bestRun *emRun
	iters := 0
	for _, r := range runs {
		iters += r.g.Iterations
		if r.failed {
			continue
		}
		if bestRun == nil || r.g.LowerBound > bestRun.g.LowerBound {
			bestRun = r
		}
	}
	if bestRun == nil {
		return nil, lastErr
	}
	// Split and merge, then spikes first with half the budget: taking a
	// spike first can lead the greedy rounds to a worse optimum.
	budget := int(float64(iters) * smemBudget)
	best := e.smem(e.smem(bestRun, budget, false), budget/2, true).g
	best.NInit = opt.NInit
	return best, nil
}

// polishTop restarts, the best by their last trace value, continue
// until the mean log-likelihood changes by less than Tol·polishTol.
const (
	polishTop = 3
	polishTol = 1e-3
)

// em holds the data, options and scratch space of a mixture fit.
type em struct {
	x    *Matrix
	opt  GMMOptions
	w    int
	resp []float64   // n×k responsibilities
	lp   [][]float64 // per worker: blockRows×k log densities
	diff [][]float64 // per worker: scratch for scatter, 2·blockRows·d values
	part []float64   // per block: log-likelihood, then k sums of r, then k×d sums of r x
	cpar []float64   // per block: k×d×d (full, tied) or k×d (diag, spherical) scatter sums
}

func newEM(x *Matrix, opt GMMOptions) *em {
	w := workers(opt.Workers)
	e := &em{x: x, opt: opt, w: w}
	k := opt.K
	// A block holds at most blockRows rows, and no more than the data
	// has: 3 rows of 1,000,000 columns asked for 8 GB of scratch.
	rows := min(blockRows, x.Rows)
	for range w {
		e.lp = append(e.lp, make([]float64, rows*k))
		e.diff = append(e.diff, make([]float64, 2*rows*x.Cols))
	}
	return e
}

// MaxEntries bounds the numbers a fit holds for its covariances: 2^28
// float64s, 2 GiB. A full covariance of 1,000,000 columns asked the
// runtime for 8 TB and crashed the process.
const MaxEntries = 1 << 28

// checkSize refuses a fit whose covariances take more than MaxEntries
// numbers: covLen each for the scatter sums of every block of rows, the
// parameters of the runs and of the densities (counted as four copies),
// in floating point so that the count itself cannot overflow.
func checkSize(x *Matrix, opt GMMOptions) error {
	k, d := float64(opt.K), float64(x.Cols)
	var per float64
	switch opt.Covariance {
	case Full:
		per = k * d * d
	case Tied:
		per = d * d
	case Diag:
		per = k * d
	default:
		per = k
	}
	need := per * float64(numBlocks(x.Rows)+3+opt.NInit)
	if need <= MaxEntries {
		return nil
	}
	return &Error{Err: ErrTooLarge, Msg: fmt.Sprintf("a mixture of %d components with %s covariances of %d columns holds %.3g numbers (%s), more than the limit of %d (2 GiB): fewer columns, or a diagonal or spherical covariance, fit in it",
		opt.K, opt.Covariance, x.Cols, need, input.Bytes(int64(min(need*8, math.MaxInt64))), MaxEntries)}
}

// params are a mixture's parameters during EM.
type params struct {
	weights, means, cov []float64
}

// emRun is one restart's EM run.
type emRun struct {
	i      int
	p      params // the parameters after the last M-step
	g      *GMM   // the fit so far: Trace, Iterations; the rest set by finish
	failed bool
}

// start returns restart i at its first parameters.
func (e *em) start(i int) (*emRun, error) {
	x, opt := e.x, e.opt
	if e.resp == nil {
		e.resp = make([]float64, x.Rows*opt.K)
	}
	p, err := e.initial(newRand(opt.Seed, i))
	if err != nil {
		return nil, err
	}
	return &emRun{i: i, p: p, g: &GMM{K: opt.K, D: x.Cols, Covariance: opt.Covariance, N: x.Rows}}, nil
}

// iterate continues r by EM iterations until the mean log-likelihood
// changes by less than tol (converged) or r has run maxIter iterations in
// all, and then sets r's fit to its parameters.
func (e *em) iterate(r *emRun, tol float64, maxIter int) (converged bool, err error) {
	x, opt := e.x, e.opt
	k, d := opt.K, x.Cols
	g, p := r.g, r.p
	prev := math.Inf(-1)
	if len(g.Trace) > 0 {
		prev = g.Trace[len(g.Trace)-1]
	}
	for it := g.Iterations + 1; it <= maxIter; it++ {
		gs, err := whiten(opt.Covariance, k, d, p.weights, p.means, p.cov)
		if err != nil {
			return false, err
		}
		ll, nk, sx, err := e.estep(gs, true)
		if err != nil {
			return false, err
		}
		g.Trace = append(g.Trace, ll)
		g.Iterations = it
		if opt.Progress != nil {
			opt.Progress(r.i, it, ll)
		}
		p = e.mstep(nk, sx)
		r.p = p
		if math.Abs(ll-prev) < tol {
			converged = true
			break
		}
		prev = ll
	}
	gs, err := whiten(opt.Covariance, k, d, p.weights, p.means, p.cov)
	if err != nil {
		return false, err
	}
	if g.LogLikelihood, err = e.score(gs); err != nil {
		return false, err
	}
	g.LowerBound = g.Trace[len(g.Trace)-1]
	g.Weights, g.Means, g.Covariances = p.weights, p.means, p.cov
	return converged, nil
}

// initial returns the first parameters of restart i.
func (e *em) initial(rng *rand.Rand) (params, error) {
	x, opt := e.x, e.opt
	k, d, n := opt.K, x.Cols, x.Rows
	switch opt.Init {
	case InitGiven:
		g := opt.Given
		return params{slices.Clone(g.Weights), slices.Clone(g.Means), slices.Clone(g.Covariances)}, nil
	case InitKMeansPP:
		// The seeds are chosen on the data scaled as KMeans scales it
		// (see scaleData), whose squared distances do not underflow.
		y, _ := scaleData(x)
		km := newKMeans(y, k, e.w)
		_, rows := km.seed(rng)
		centers := make([]float64, k*d)
		for j, i := range rows {
			copy(centers[j*d:(j+1)*d], x.Row(i))
		}
		p := params{weights: make([]float64, k), means: centers, cov: make([]float64, opt.Covariance.covLen(k, d))}
		for j := range p.weights {
			p.weights[j] = 1 / float64(k)
		}
		switch opt.Covariance {
		case Full, Tied:
			for j := range len(p.cov) / (d * d) {
				for l := range d {
					p.cov[j*d*d+l*d+l] = opt.RegCovar
				}
			}
		default:
			for t := range p.cov {
				p.cov[t] = opt.RegCovar
			}
		}
		return p, nil
	case InitKMeans:
		y, _ := scaleData(x)
		km := newKMeans(y, k, e.w)
		centers, _ := km.seed(rng)
		r := km.lloyd(centers, 300, 1e-4*y.colMeanVariance())
		clear(e.resp)
		for i, j := range r.Labels {
			e.resp[i*k+int(j)] = 1
		}
	case InitRandom:
		for t := range e.resp {
			e.resp[t] = rng.Float64()
		}
		for i := range n {
			row := e.resp[i*k : (i+1)*k]
			s := 0.0
			for _, v := range row {
				s += v
			}
			for j := range row {
				row[j] /= s
			}
		}
	}
	nk, sx := e.respSums()
	return e.mstep(nk, sx), nil
}

// estep computes the responsibilities of every row under gs (into e.resp
// when keep), and returns the mean log-likelihood, the responsibilities'
// sums per component and their sums of r x.
func (e *em) estep(gs *gauss, keep bool) (ll float64, nk, sx []float64, err error) {
	x, k, d := e.x, e.opt.K, e.x.Cols
	e.forParts(func(wk, lo, hi int, part []float64) {
		lp := e.lp[wk][:(hi-lo)*k]
		gs.logProb(lp, x.Data, lo, hi)
		if !keep {
			part[0] = normalize(lp, lp, k)
			return
		}
		resp := e.resp[lo*k : hi*k]
		part[0] = normalize(resp, lp, k)
		blockSums(part[1:], resp, x.Data, lo, hi, k, d)
	})
	ll, nk, sx = e.partSums(keep)
	ll /= float64(x.Rows)
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		return 0, nil, nil, &Error{Err: ErrOverflow, Msg: "the log-likelihood is not finite: some row is too far from every component for float64 (rescale the data)"}
	}
	return ll, nk, sx, nil
}

// score returns the mean log-likelihood of the rows under gs.
func (e *em) score(gs *gauss) (float64, error) {
	ll, _, _, err := e.estep(gs, false)
	return ll, err
}

// respSums returns the responsibilities' sums per component and their sums
// of r x.
func (e *em) respSums() (nk, sx []float64) {
	x, k, d := e.x, e.opt.K, e.x.Cols
	e.forParts(func(_, lo, hi int, part []float64) {
		blockSums(part[1:], e.resp[lo*k:hi*k], x.Data, lo, hi, k, d)
	})
	_, nk, sx = e.partSums(true)
	return nk, sx
}

// forParts calls f for every block of rows, lo to hi, on worker wk, with
// the block's part of e.part: 1+k+k×d values, a log-likelihood followed by
// the sums of blockSums.
func (e *em) forParts(f func(wk, lo, hi int, part []float64)) {
	n := e.x.Rows
	stride := 1 + e.opt.K + e.opt.K*e.x.Cols
	if nb := numBlocks(n); len(e.part) < nb*stride {
		e.part = make([]float64, nb*stride)
	}
	forBlocks(e.w, n, func(wk, b int) {
		lo, hi := blockRange(b, n)
		f(wk, lo, hi, e.part[b*stride:(b+1)*stride])
	})
}

// partSums returns the sum of the blocks' log-likelihoods and, if sums is
// set, the sums of their responsibilities per component and of r x, block
// by block in order.
func (e *em) partSums(sums bool) (ll float64, nk, sx []float64) {
	k, d := e.opt.K, e.x.Cols
	stride := 1 + k + k*d
	nk, sx = make([]float64, k), make([]float64, k*d)
	for b := range numBlocks(e.x.Rows) {
		part := e.part[b*stride : (b+1)*stride]
		ll += part[0]
		if sums {
			addTo(nk, part[1:1+k])
			addTo(sx, part[1+k:])
		}
	}
	return ll, nk, sx
}

// blockSums sets dst to the k sums of the responsibilities of rows lo to
// hi followed by the k×d sums of r x.
func blockSums(dst, resp, x []float64, lo, hi, k, d int) {
	clear(dst)
	nk, sx := dst[:k], dst[k:]
	for i := lo; i < hi; i++ {
		r := resp[(i-lo)*k : (i-lo+1)*k]
		row := x[i*d : (i+1)*d : (i+1)*d]
		for j, rj := range r {
			if rj == 0 {
				continue
			}
			nk[j] += rj
			s := sx[j*d : (j+1)*d : (j+1)*d]
			for l, v := range row {
				s[l] += rj * v
			}
		}
	}
}

func addTo(dst, s []float64) {
	s = s[:len(dst)]
	for i, v := range s {
		dst[i] += v
	}
}

// mstep returns the parameters that maximise the expected log-likelihood
// under e.resp, given its sums nk and sx (see the package documentation).
func (e *em) mstep(nk, sx []float64) params {
	x, opt := e.x, e.opt
	k, d, n := opt.K, x.Cols, x.Rows
	const eps10 = 10 * 2.220446049250313e-16
	p := params{weights: make([]float64, k), means: make([]float64, k*d), cov: make([]float64, opt.Covariance.covLen(k, d))}
	tot := 0.0
	for j := range k {
		nk[j] += eps10
		tot += nk[j]
	}
	for j := range k {
		p.weights[j] = nk[j] / tot
		for l := range d {
			p.means[j*d+l] = sx[j*d+l] / nk[j]
		}
	}
	tri := opt.Covariance == Full || opt.Covariance == Tied
	cl := k * d
	if tri {
		cl = k * d * d
	}
	nb := numBlocks(n)
	if len(e.cpar) < nb*cl {
		e.cpar = make([]float64, nb*cl)
	}
	forBlocks(e.w, n, func(wk, b int) {
		lo, hi := blockRange(b, n)
		acc := e.cpar[b*cl : (b+1)*cl]
		clear(acc)
		scatter(acc, e.resp[lo*k:hi*k], x.Data, lo, hi, k, d, p.means, tri, e.diff[wk])
	})
	acc := make([]float64, cl)
	for b := range nb {
		addTo(acc, e.cpar[b*cl:(b+1)*cl])
	}
	reg := opt.RegCovar
	switch opt.Covariance {
	case Full:
		for j := range k {
			a, c := acc[j*d*d:(j+1)*d*d], p.cov[j*d*d:(j+1)*d*d]
			for r := range d {
				for s := r; s < d; s++ {
					v := a[r*d+s] / nk[j]
					c[r*d+s], c[s*d+r] = v, v
				}
				c[r*d+r] += reg
			}
		}
	case Tied:
		for j := range k {
			a := acc[j*d*d : (j+1)*d*d]
			for r := range d {
				for s := r; s < d; s++ {
					p.cov[r*d+s] += a[r*d+s]
				}
			}
		}
		for r := range d {
			for s := r; s < d; s++ {
				v := p.cov[r*d+s] / tot
				p.cov[r*d+s], p.cov[s*d+r] = v, v
			}
			p.cov[r*d+r] += reg
		}
	case Diag:
		for j := range k {
			for l := range d {
				p.cov[j*d+l] = acc[j*d+l]/nk[j] + reg
			}
		}
	case Spherical:
		for j := range k {
			s := 0.0
			for l := range d {
				s += acc[j*d+l]/nk[j] + reg
			}
			p.cov[j] = s / float64(d)
		}
	}
	return p
}

// scatter adds to acc, for rows lo to hi, the responsibility-weighted
// scatter of each row about each component's mean: the upper triangle of
// Σ_i r_ij (x_i-μ_j)(x_i-μ_j)ᵀ at acc[j*d*d:] when tri, else the squares
// Σ_i r_ij (x_il-μ_jl)² at acc[j*d:]. buf has room for 2·blockRows·d
// values. Per component it forms the block's centred rows D and weighted
// rows R = r D, then adds RᵀD four rows at a time, so that each element of
// acc is loaded and stored once per four rows.
func scatter(acc, resp, x []float64, lo, hi, k, d int, means []float64, tri bool, buf []float64) {
	nr := hi - lo
	D, R := buf[:nr*d], buf[nr*d:2*nr*d]
	for j := range k {
		mu := means[j*d : (j+1)*d : (j+1)*d]
		for i := range nr {
			rj := resp[i*k+j]
			row := x[(lo+i)*d : (lo+i+1)*d : (lo+i+1)*d]
			di, ri := D[i*d:(i+1)*d:(i+1)*d], R[i*d:(i+1)*d:(i+1)*d]
			for l, v := range row {
				e := v - mu[l]
				di[l] = e
				ri[l] = rj * e
			}
		}
		if !tri {
			a := acc[j*d : (j+1)*d : (j+1)*d]
			for i := range nr {
				di, ri := D[i*d:(i+1)*d:(i+1)*d], R[i*d:(i+1)*d:(i+1)*d]
				for l, v := range di {
					a[l] += ri[l] * v
				}
			}
			continue
		}
		a := acc[j*d*d : (j+1)*d*d : (j+1)*d*d]
		i := 0
		for ; i+3 < nr; i += 4 {
			d0, d1, d2, d3 := D[i*d:(i+1)*d:(i+1)*d], D[(i+1)*d:(i+2)*d:(i+2)*d], D[(i+2)*d:(i+3)*d:(i+3)*d], D[(i+3)*d:(i+4)*d:(i+4)*d]
			r0, r1, r2, r3 := R[i*d:(i+1)*d:(i+1)*d], R[(i+1)*d:(i+2)*d:(i+2)*d], R[(i+2)*d:(i+3)*d:(i+3)*d], R[(i+3)*d:(i+4)*d:(i+4)*d]
			for p := range d {
				p0, p1, p2, p3 := r0[p], r1[p], r2[p], r3[p]
				aq := a[p*d+p : (p+1)*d : (p+1)*d]
				e0, e1, e2, e3 := d0[p:][:len(aq)], d1[p:][:len(aq)], d2[p:][:len(aq)], d3[p:][:len(aq)]
				for q := range aq {
					aq[q] += p0*e0[q] + p1*e1[q] + p2*e2[q] + p3*e3[q]
				}
			}
		}
		for ; i < nr; i++ {
			di, ri := D[i*d:(i+1)*d:(i+1)*d], R[i*d:(i+1)*d:(i+1)*d]
			for p, rv := range ri {
				ap := a[p*d : (p+1)*d : (p+1)*d]
				for q := p; q < d; q++ {
					ap[q] += rv * di[q]
				}
			}
		}
	}
}
