package hmm

import (
	"errors"
	"math"
	"math/rand/v2"
)

// Prior is the M-step's regularisation: symmetric Dirichlet priors, as
// pseudo-counts (α − 1) added to every expected count, and a floor on
// Gaussian variances. The zero value is maximum likelihood with the
// default floor. With pseudo-counts Baum–Welch maximises the posterior
// density (MAP), and its trace is the log-likelihood plus the priors' log
// densities up to a constant.
type Prior struct {
	Init     float64 // added to the expected count of each initial state
	Trans    float64 // added to the expected count of each transition
	Emit     float64 // added to the expected count of each symbol in each state (categorical)
	VarFloor float64 // the least Gaussian variance; 0 means DefaultVarFloor
}

// DefaultVarFloor is the least Gaussian variance an M-step gives when the
// prior sets none.
const DefaultVarFloor = 1e-6

func (p Prior) varFloor() float64 {
	if p.VarFloor == 0 {
		return DefaultVarFloor
	}
	return p.VarFloor
}

func (p Prior) check() error {
	for _, v := range []float64{p.Init, p.Trans, p.Emit, p.VarFloor} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return errorf(ErrBadOption, "prior pseudo-count or variance floor %v: need a finite number ≥ 0", v)
		}
	}
	return nil
}

// logPrior returns the prior's log-density of h up to a constant.
func (h *HMM) logPrior(p Prior) float64 {
	return dirichletLog(p.Init, h.Init) + dirichletLog(p.Trans, h.Trans) + h.Emit.logPrior(p, h.K)
}

// MStep returns the HMM that maximises the expected complete-data
// log-likelihood of st (plus the prior's log-density): the M-step of
// Baum–Welch, h being the HMM st was gathered under. A state that no
// sequence visits (its expected counts all 0, and no pseudo-count) keeps
// its row of h, as does a Gaussian dimension never observed in a state.
// Statistics that are not h's shape are an *Error of kind ErrShape; a
// variance that collapses below float64's normal range, of kind
// ErrVariance.
func (h *HMM) MStep(st *Stats, p Prior) (*HMM, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	want := h.newStats()
	if err := want.Merge(st); err != nil {
		return nil, err
	}
	k := h.K
	out := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k)}
	dirichletMStep(out.Init, st.Init, h.Init, p.Init)
	for i := range k {
		dirichletMStep(out.Trans[i*k:(i+1)*k], st.Trans[i*k:(i+1)*k], h.Trans[i*k:(i+1)*k], p.Trans)
	}
	var err error
	if out.Emit, err = h.Emit.mstep(st, p); err != nil {
		return nil, err
	}
	return out, nil
}

// dirichletMStep sets dst to (n + a)/Σ(n + a), or to old if that sum is
// 0.
func dirichletMStep(dst, n, old []float64, a float64) {
	s := 0.0
	for _, v := range n {
		s += v + a
	}
	if !(s > 0) {
		copy(dst, old)
		return
	}
	for i, v := range n {
		dst[i] = (v + a) / s
	}
}

// FitOptions are Baum–Welch's options. The zero value runs 100
// iterations from the start given, by maximum likelihood.
type FitOptions struct {
	MaxIter  int     // the most M-steps per restart; 0 means 100
	Tol      float64 // stop when an M-step raises the trace by less than Tol (nats, summed over the sequences); 0 never stops early
	Prior    Prior   // pseudo-counts and the variance floor
	Restarts int     // the number of starts: the start given, then random ones; 0 means 1
	Seed     uint64  // the random starts' seed
	Workers  int     // goroutines for the E-step; 0 means GOMAXPROCS
}

// FitResult is the outcome of Baum–Welch.
type FitResult struct {
	HMM        *HMM      // the fitted HMM
	LogLik     float64   // its log-likelihood, Σ over the sequences
	Trace      []float64 // the log-likelihood (plus the prior's log-density) of the start and after each M-step
	Iterations int       // M-steps run
	Converged  bool      // whether the last M-step raised the trace by less than Tol
	Restart    int       // the restart kept: 0 the start given, i ≥ 1 RandomStart(start, seqs, Seed, i)
}

// Fit runs Baum–Welch (EM on the hidden states) from start over seqs, and
// from Restarts−1 random starts beside it, and returns the fit whose last
// trace value is the highest (the first of equal ones). Each iteration is
// an E-step over every sequence on Workers goroutines (deterministic: the
// same numbers with any number) and an M-step. The trace, which EM never
// lowers, is checked: a fall of more than 1e-9 relative is an *Error of
// kind ErrNotMonotone, a defect of this package. A start that fails is
// dropped, whatever its error if it is the start given (data it cannot
// explain, say), by a collapsed variance (ErrVariance) if it is a random
// one (another error of a random start is returned); if every start
// fails, the first error is returned. Restart in the result says which
// start was kept.
func Fit(start *HMM, seqs []Seq, o FitOptions) (*FitResult, error) {
	if err := start.Validate(); err != nil {
		return nil, err
	}
	if o.MaxIter < 0 || !(o.Tol >= 0) || math.IsInf(o.Tol, 1) || o.Restarts < 0 {
		return nil, errorf(ErrBadOption, "max iterations %d, tolerance %v, restarts %d: need numbers ≥ 0", o.MaxIter, o.Tol, o.Restarts)
	}
	if err := o.Prior.check(); err != nil {
		return nil, err
	}
	if err := start.checkSeqs(seqs); err != nil {
		return nil, err
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	var best *FitResult
	var first error
	for r := range max(o.Restarts, 1) {
		h := start
		if r > 0 {
			h = randomStart(start, seqs, o.Seed, r)
		}
		res, err := baumWelch(h, seqs, o)
		if err != nil {
			if first == nil {
				first = err
			}
			if r == 0 || errors.Is(err, ErrVariance) {
				continue
			}
			return nil, err
		}
		res.Restart = r
		if best == nil || res.Trace[len(res.Trace)-1] > best.Trace[len(best.Trace)-1] {
			best = res
		}
	}
	if best == nil {
		return nil, first
	}
	return best, nil
}

// baumWelch runs EM from h.
func baumWelch(h *HMM, seqs []Seq, o FitOptions) (*FitResult, error) {
	st, err := h.estep(seqs, o.Workers)
	if err != nil {
		return nil, err
	}
	obj := st.LogLik + h.logPrior(o.Prior)
	res := &FitResult{Trace: []float64{obj}}
	for res.Iterations < o.MaxIter {
		next, err := h.MStep(st, o.Prior)
		if err != nil {
			return nil, err
		}
		nst, err := next.estep(seqs, o.Workers)
		if err != nil {
			return nil, err
		}
		nobj := nst.LogLik + next.logPrior(o.Prior)
		if nobj < obj-1e-9*(1+math.Abs(obj)) || math.IsNaN(nobj) {
			return nil, errorf(ErrNotMonotone, "log-likelihood fell from %v to %v in M-step %d", obj, nobj, res.Iterations+1)
		}
		res.Iterations++
		res.Trace = append(res.Trace, nobj)
		gain := nobj - obj
		h, st, obj = next, nst, nobj
		if o.Tol > 0 && gain < o.Tol {
			res.Converged = true
			break
		}
	}
	res.HMM, res.LogLik = h, st.LogLik
	return res, nil
}

// RandomStart returns a random HMM of shape's size and emission kind, the
// start of Fit's restart i (i ≥ 1) with the given seed, drawn from
// math/rand/v2's PCG(seed, i): every initial distribution, transition row
// and categorical emission row nearly uniform over distributions (no
// entry below about 1e-3/K), and each Gaussian state's mean the values of
// a step chosen uniformly among all the data's steps, its variances the
// data's.
func RandomStart(shape *HMM, seqs []Seq, seed uint64, i int) (*HMM, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	if err := shape.checkSeqs(seqs); err != nil {
		return nil, err
	}
	return randomStart(shape, seqs, seed, i), nil
}

func randomStart(shape *HMM, seqs []Seq, seed uint64, i int) *HMM {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	k := shape.K
	h := &HMM{K: k, Init: make([]float64, k), Trans: make([]float64, k*k)}
	randomDist(h.Init, r)
	for j := range k {
		randomDist(h.Trans[j*k:(j+1)*k], r)
	}
	h.Emit = shape.Emit.random(k, seqs, r)
	return h
}
