package hypothesis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pbl-lang/pbl/internal/par"
	"github.com/pbl-lang/pbl/ir"
)

// MaxHypotheses is the largest number of hypotheses Evaluate enumerates
// (and of a concept space's semantically distinct hypotheses): 8 bytes
// each, twice with a prior that is not uniform.
const MaxHypotheses = 100_000_000

// chunk is the number of consecutive hypotheses one goroutine evaluates
// at a time. Chunks are fixed, and their results combined in order, so
// that every result is the same for any number of workers.
const chunk = 1 << 13

// Posterior is the posterior distribution over a space's grid of
// hypotheses given data: for each hypothesis its log prior, its
// log-likelihood and its log posterior. Hypotheses are numbered
// 0..Len()-1 in the order of the grid, the last parameter fastest.
type Posterior struct {
	Space *ir.Space

	grid   [][]float64 // grid[k]: the values of parameter k
	stride []int
	lw     []float64 // unnormalised log prior weight; nil: uniform
	ll     []float64 // ln P(D|h)

	mapIdx, mlIdx int
	maxPost       float64 // max of lw + ll
	support       int

	like   *likelihood
	prior  *node    // ln of the prior weight (logWeight); nil: uniform
	priorW *node    // the prior weight
	plan   *runPlan // or nil: one hypothesis at a time
	normW  sync.Once
	logW   float64 // ln Σ w: the prior's normaliser
	norm   sync.Once
	logZ   float64 // ln Σ w·P(D|h)
	cumOne sync.Once
	cum    []float64 // cumulative posterior, for Gibbs
}

// Evaluate computes the posterior over the hypotheses of the
// parameterised space s (every parameter on a grid) given data d read for
// it (NewData, ReadCSV or FromColumns). It evaluates the hypotheses in
// parallel on GOMAXPROCS goroutines, in fixed chunks, so that the result
// does not depend on their number, and stops early when ctx is
// cancelled (returning ctx.Err()).
//
// Its errors are ir.ErrorLists of *ir.Error: a continuous parameter
// (ErrContinuous), more than MaxHypotheses hypotheses (ErrTooLarge), a
// prior weight < 0, NaN or +Inf, a prior that reads a column or is 0
// everywhere (ErrPrior), an expression out of its domain under a
// hypothesis (ErrDomain, naming it and the row), data impossible under
// every hypothesis the prior allows (ErrImpossible). The first error in
// the grid's order is reported.
func Evaluate(ctx context.Context, s *ir.Space, m *ir.Model, d *Data) (*Posterior, error) {
	return evaluateBy(ctx, s, d, true)
}

// evaluateBy is Evaluate, by runs (runs.go) or, without, one hypothesis
// at a time: the reference the tests compare runs with.
func evaluateBy(ctx context.Context, s *ir.Space, d *Data, runs bool) (*Posterior, error) {
	if s.Concept != nil {
		return nil, ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("%s is a concept space: its posterior is its version space", s.Name)}}
	}
	if len(d.Cols) != len(s.Columns) {
		return nil, fmt.Errorf("hypothesis: data with %d columns for space %s, which reads %d", len(d.Cols), s.Name, len(s.Columns))
	}
	p := &Posterior{Space: s, grid: make([][]float64, len(s.Params)), stride: make([]int, len(s.Params))}
	count := 1
	for k := len(s.Params) - 1; k >= 0; k-- {
		sp := s.Params[k]
		if sp.Values == nil {
			return nil, ir.ErrorList{{Pos: sp.Pos, Msg: fmt.Sprintf("parameter %s is continuous: a space with one has no table of hypotheses (its ML hypothesis is fitted instead)", sp.Name), Err: ErrContinuous}}
		}
		if len(sp.Values) == 0 {
			return nil, ir.ErrorList{{Pos: sp.Pos, Msg: fmt.Sprintf("parameter %s has no values", sp.Name), Err: ErrTooLarge}}
		}
		p.grid[k], p.stride[k] = sp.Values, count
		if count > MaxHypotheses/len(sp.Values) {
			return nil, ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("space %s has %s hypotheses, more than the limit of %d: use a coarser grid", s.Name, gridSize(s), MaxHypotheses), Err: ErrTooLarge}}
		}
		count *= len(sp.Values)
	}
	c := &compiler{s: s}
	if s.Prior != nil {
		if col := firstColumn(s.Prior); col != nil {
			return nil, ir.ErrorList{{Pos: col.Pos, Msg: fmt.Sprintf("the prior reads the data column %s: it must depend on the parameters only", col.Name), Err: ErrPrior}}
		}
		// The prior is evaluated as ln w, so that weights below float64's
		// range (2^-2000) keep their ratios; priorW, the weight itself,
		// decides where ln w is NaN (a product of two negative factors)
		// and says what is wrong in messages.
		p.priorW = c.compile(s.Prior)
		p.prior = c.compile(logWeight(s.Prior))
		if p.prior.kind == kConst { // a constant prior is uniform, if valid
			lw, err := p.logWeight(p.prior.val, nil, 0)
			if err != nil {
				return nil, err
			}
			if math.IsInf(lw, -1) {
				return nil, ir.ErrorList{{Pos: s.Prior.Position(), Msg: fmt.Sprintf("the prior weight is 0 for every hypothesis of %s", s.Name), Err: ErrPrior}}
			}
			p.prior = nil
		}
	}
	like, err := newLikelihood(c, d, p.Hypothesis(0))
	if err != nil {
		return nil, err
	}
	p.like = like
	p.ll = make([]float64, count)
	if p.prior != nil {
		p.lw = make([]float64, count)
	}
	if runs {
		p.plan = newRunPlan(p)
	}
	if err := p.run(ctx, count); err != nil {
		return nil, err
	}
	return p, nil
}

// gridSize renders the product of the grid's sizes: 1001 × 1001 × 3.
func gridSize(s *ir.Space) string {
	out := ""
	for i, sp := range s.Params {
		if i > 0 {
			out += " × "
		}
		out += fmt.Sprint(len(sp.Values))
	}
	return out
}

// logWeight returns ln w of hypothesis i, whose parameters are params
// (nil: Hypothesis(i)), from lw, the prior's log expression evaluated: lw
// itself where it is a number below +Inf, else ln of the weight evaluated
// directly if that is finite and >= 0 (the log expression is NaN for a
// product of negative factors, or 0^0), else an error naming the weight.
func (p *Posterior) logWeight(lw float64, params []float64, i int) (float64, error) {
	if !math.IsNaN(lw) && !math.IsInf(lw, 1) {
		return lw, nil
	}
	if params == nil {
		params = p.Hypothesis(i)
	}
	w := p.priorW.at(params, nil)
	if w >= 0 && !math.IsInf(w, 1) && !math.IsInf(lw, 1) {
		return math.Log(w), nil
	}
	if math.IsInf(lw, 1) {
		w = math.Inf(1)
	}
	return 0, ir.ErrorList{{Pos: p.Space.Prior.Position(), Msg: fmt.Sprintf("the prior weight is %g under %s: it must be finite and >= 0", w, hypText(p.Space, params)), Err: ErrPrior}}
}

// logWeight rewrites a prior's weight expression as the expression of its
// natural log, through exp, powers, products and quotients, so that a
// weight below float64's range (2^(-2000 - w)) is computed from its log;
// elsewhere it takes ln of the subexpression.
func logWeight(e ir.Expr) ir.Expr {
	at := e.Position()
	switch e := e.(type) {
	case *ir.Num:
		return &ir.Num{Pos: e.Pos, Value: math.Log(e.Value)}
	case *ir.Call:
		if e.Fn == ir.FnExp {
			return e.Args[0]
		}
	case *ir.Binary:
		switch e.Op {
		case ir.OpMul:
			return &ir.Binary{Pos: at, Op: ir.OpAdd, X: logWeight(e.X), Y: logWeight(e.Y)}
		case ir.OpDiv:
			return &ir.Binary{Pos: at, Op: ir.OpSub, X: logWeight(e.X), Y: logWeight(e.Y)}
		case ir.OpPow:
			return &ir.Binary{Pos: at, Op: ir.OpMul, X: e.Y, Y: logWeight(e.X)}
		}
	}
	return &ir.Call{Pos: at, Fn: ir.FnLog, Args: []ir.Expr{e}}
}

// chunkResult is what one chunk of hypotheses found.
type chunkResult struct {
	err              error
	mapIdx, mlIdx    int
	maxPost, maxLike float64
	support          int
	below            int  // hypotheses of weight > 0 whose ln P(D|h) is below float64's range
	anyPrior         bool // some weight > 0
}

// run evaluates every hypothesis, in chunks, in parallel.
func (p *Posterior) run(ctx context.Context, count int) error {
	size := p.chunkSize(count)
	chunks := (count + size - 1) / size
	res := make([]chunkResult, chunks)
	var firstErr atomic.Int64 // the lowest chunk with an error; chunks after it are skipped
	firstErr.Store(math.MaxInt64)
	pool := sync.Pool{New: func() any { return p.newScratch() }}
	par.For(chunks, func(ci int) {
		if int64(ci) > firstErr.Load() || ctx.Err() != nil {
			return
		}
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		r := &res[ci]
		if r.err = p.evalChunk(sc, ci*size, min(count, (ci+1)*size), r); r.err != nil {
			for {
				cur := firstErr.Load()
				if int64(ci) >= cur || firstErr.CompareAndSwap(cur, int64(ci)) {
					break
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if e := firstErr.Load(); e != math.MaxInt64 {
		return res[e].err
	}
	p.maxPost, p.mapIdx, p.mlIdx = math.Inf(-1), 0, 0
	maxLike, anyPrior, below := math.Inf(-1), false, 0
	for _, r := range res {
		below += r.below
		if r.maxPost > p.maxPost {
			p.maxPost, p.mapIdx = r.maxPost, r.mapIdx
		}
		if r.maxLike > maxLike {
			maxLike, p.mlIdx = r.maxLike, r.mlIdx
		}
		p.support += r.support
		anyPrior = anyPrior || r.anyPrior
	}
	s := p.Space
	switch {
	case !anyPrior:
		return ir.ErrorList{{Pos: s.Prior.Position(), Msg: fmt.Sprintf("the prior weight is 0 for every hypothesis of %s", s.Name), Err: ErrPrior}}
	case p.support == 0 && below > 0:
		return ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("ln P(D|h) is below float64's range (−1.8e308) under every hypothesis of %s that the prior allows: the data are possible but too improbable to compare (a standard deviation tiny beside the data's distance from the mean)", s.Name), Err: ErrRange}}
	case p.support == 0:
		return ir.ErrorList{{Pos: s.Pos, Msg: fmt.Sprintf("the data are impossible under every hypothesis of %s that the prior allows", s.Name), Err: ErrImpossible}}
	}
	return nil
}

// newScratch returns a goroutine's working memory for evalChunk.
func (p *Posterior) newScratch() *scratch {
	sc := p.like.newScratch()
	if p.plan != nil {
		sc.run = newRunScratch(p.plan, p.like.maxJ)
	}
	sc.params, sc.idx = make([]float64, len(p.grid)), make([]int, len(p.grid))
	return sc
}

// chunkSize returns the number of consecutive hypotheses one goroutine
// evaluates at a time: chunk, or fewer when an observation is evaluated
// a column at a time, so that a few thousand costly hypotheses still
// keep every worker busy (and ctx is checked often). A chunk's results
// are combined in grid order, so they do not depend on its size.
func (p *Posterior) chunkSize(count int) int {
	rows := p.like.d.Len()
	for _, o := range p.like.obs {
		switch o.mode {
		case modeNormal, modeSigmoid, modeBernoulli:
			return max(min(chunk, (1<<17)/max(rows, 1)), 16, count>>16)
		}
	}
	return chunk
}

// evalChunk evaluates hypotheses lo..hi-1, a run at a time (runs.go).
func (p *Posterior) evalChunk(sc *scratch, lo, hi int, r *chunkResult) error {
	r.maxPost, r.maxLike = math.Inf(-1), math.Inf(-1)
	if p.plan == nil {
		return p.evalRange(sc, lo, hi, r)
	}
	np := len(p.grid)
	idx, params := sc.idx, sc.params // the odometer of all parameters but the last
	p.seek(idx, params, lo, np-1)
	g := len(p.plan.grid)
	t0 := lo % g
	for i := lo; i < hi; {
		t1 := min(g, t0+hi-i)
		if !p.fastRun(sc, params, i, t0, t1, r) {
			if err := p.evalRange(sc, i, i+t1-t0, r); err != nil {
				return err
			}
		}
		i += t1 - t0
		t0 = 0
		p.advance(idx, params, np-2) // the next run
	}
	return nil
}

// evalRange evaluates hypotheses lo..hi-1 one at a time, returning the
// first error.
func (p *Posterior) evalRange(sc *scratch, lo, hi int, r *chunkResult) error {
	np := len(p.grid)
	idx := make([]int, np) // the odometer
	params := make([]float64, np)
	p.seek(idx, params, lo, np)
	for i := lo; i < hi; i++ {
		lw := 0.0
		if p.prior != nil {
			var err error
			if lw, err = p.logWeight(p.prior.at(params, nil), params, i); err != nil {
				return err
			}
			p.lw[i] = lw
		}
		if lw > math.Inf(-1) {
			r.anyPrior = true
		}
		ll, below, err := p.like.logLik(sc, params)
		if err != nil {
			return err
		}
		if below && lw > math.Inf(-1) {
			r.below++
		}
		p.ll[i] = ll
		if ll > r.maxLike {
			r.maxLike, r.mlIdx = ll, i
		}
		if post := lw + ll; post > r.maxPost {
			r.maxPost, r.mapIdx = post, i
		}
		if lw+ll > math.Inf(-1) {
			r.support++
		}
		p.advance(idx, params, np-1) // next hypothesis
	}
	return nil
}

// seek sets the first n digits of the odometer idx, and params (the grid
// values it points at), to those of hypothesis i.
func (p *Posterior) seek(idx []int, params []float64, i, n int) {
	for k := range n {
		idx[k] = i / p.stride[k] % len(p.grid[k])
		params[k] = p.grid[k][idx[k]]
	}
}

// advance moves the odometer idx, and params (the grid values it points
// at), on by one in parameter last, carrying into the parameters before
// it.
func (p *Posterior) advance(idx []int, params []float64, last int) {
	for k := last; k >= 0; k-- {
		idx[k]++
		if idx[k] < len(p.grid[k]) {
			params[k] = p.grid[k][idx[k]]
			return
		}
		idx[k] = 0
		params[k] = p.grid[k][0]
	}
}

// Len returns the number of hypotheses.
func (p *Posterior) Len() int { return len(p.ll) }

// Hypothesis returns the parameters' values of hypothesis i, in the order
// of Space.Params.
func (p *Posterior) Hypothesis(i int) []float64 {
	out := make([]float64, len(p.grid))
	for k, g := range p.grid {
		out[k] = g[i/p.stride[k]%len(g)]
	}
	return out
}

// logPost is hypothesis i's unnormalised log posterior, ln w + ln P(D|h).
func (p *Posterior) logPost(i int) float64 {
	if p.lw == nil {
		return p.ll[i]
	}
	return p.lw[i] + p.ll[i]
}

// expUnderflow is an x below which math.Exp returns 0: e^x < 2^-1076,
// with a margin for the assembly versions, which round x·log2(e) to an
// integer exponent before scaling.
const expUnderflow = -746

// normalisePrior computes the prior's normaliser ln Σ w (once, in fixed
// chunks): ln of the grid's size for the uniform prior.
func (p *Posterior) normalisePrior() {
	p.normW.Do(func() {
		n := p.Len()
		if p.lw == nil {
			p.logW = math.Log(float64(n))
			return
		}
		maxW := math.Inf(-1)
		for _, v := range p.lw {
			maxW = max(maxW, v)
		}
		chunks := (n + chunk - 1) / chunk
		sw := make([]float64, chunks)
		// e^x is 0 for x < expUnderflow (and for -Inf): summed without
		// calling Exp. A prior often has runs of equal weights (one
		// that does not read the last parameter, a step): Exp is called
		// once per run.
		par.For(chunks, func(c int) {
			prev, e := math.NaN(), 0.0
			for _, v := range p.lw[c*chunk : min(n, (c+1)*chunk)] {
				if x := v - maxW; !(x < expUnderflow) {
					if v != prev {
						prev, e = v, math.Exp(x)
					}
					sw[c] += e
				}
			}
		})
		var tw float64
		for c := range chunks {
			tw += sw[c]
		}
		p.logW = maxW + math.Log(tw)
	})
}

// normalise computes ln Σ w·P(D|h), the posterior's normaliser (once, in
// fixed chunks). Most terms of a peaked posterior underflow to 0: they
// are summed without calling Exp.
func (p *Posterior) normalise() {
	p.norm.Do(func() {
		n := p.Len()
		chunks := (n + chunk - 1) / chunk
		sz := make([]float64, chunks)
		par.For(chunks, func(c int) {
			lo, hi := c*chunk, min(n, (c+1)*chunk)
			if p.lw == nil {
				for _, v := range p.ll[lo:hi] {
					if x := v - p.maxPost; !(x < expUnderflow) {
						sz[c] += math.Exp(x)
					}
				}
				return
			}
			for i := lo; i < hi; i++ {
				if x := p.logPost(i) - p.maxPost; !(x < expUnderflow) {
					sz[c] += math.Exp(x)
				}
			}
		})
		var tz float64
		for c := range chunks {
			tz += sz[c]
		}
		p.logZ = p.maxPost + math.Log(tz)
	})
}

// LogPrior returns ln P(h) of hypothesis i: the prior weight normalised
// over the grid.
func (p *Posterior) LogPrior(i int) float64 {
	p.normalisePrior()
	if p.lw == nil {
		return -p.logW
	}
	return p.lw[i] - p.logW
}

// LogLikelihood returns ln P(D|h) of hypothesis i, every constant
// included: a log density for real-valued data.
func (p *Posterior) LogLikelihood(i int) float64 { return p.ll[i] }

// LogPosterior returns ln P(h|D) of hypothesis i.
func (p *Posterior) LogPosterior(i int) float64 {
	p.normalise()
	return p.logPost(i) - p.logZ
}

// LogEvidence returns ln P(D) = ln Σ_h P(D|h)·P(h).
func (p *Posterior) LogEvidence() float64 {
	p.normalisePrior()
	p.normalise()
	return p.logZ - p.logW
}

// Support returns the number of hypotheses whose posterior is not 0: a
// prior weight > 0 and data possible under them. (A posterior may be
// positive yet too small for float64: its log is still finite.)
func (p *Posterior) Support() int { return p.support }

// MAP returns h_MAP, the hypothesis of highest posterior (the first in
// the grid's order on ties).
func (p *Posterior) MAP() int { return p.mapIdx }

// ML returns h_ML, the hypothesis of highest likelihood P(D|h) (the first
// on ties), whatever its prior.
func (p *Posterior) ML() int { return p.mlIdx }

// MDL returns h_MDL, the hypothesis that minimises the description length
// L(h) + L(D|h) in bits with the optimal codes of the prior and of the
// likelihood, bitsH = −log2 P(h) and bitsD = −log2 P(D|h) (negative for a
// density above 1): Mitchell's §6.6, where h_MDL = h_MAP. Ties go to the
// first in the grid's order.
func (p *Posterior) MDL() (i int, bitsH, bitsD float64) {
	best := math.Inf(1)
	i = -1
	for h := range p.Len() {
		bh, bd := -p.LogPrior(h)/math.Ln2, -p.ll[h]/math.Ln2
		if t := bh + bd; t < best {
			best, i = t, h
		}
	}
	if i < 0 {
		i = p.mapIdx
	}
	return i, -p.LogPrior(i) / math.Ln2, -p.ll[i] / math.Ln2
}

// Top returns up to k hypotheses of non-zero posterior, the most probable
// first, ties by index.
func (p *Posterior) Top(k int) []int {
	if k <= 0 {
		return nil
	}
	worse := func(a, b int) bool { // a comes after b in the listing
		pa, pb := p.logPost(a), p.logPost(b)
		return pa < pb || pa == pb && a > b
	}
	// h is a min-heap (the worst kept at the root) of at most k indices:
	// O(n log k) whatever k.
	var h []int
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && worse(h[c+1], h[c]) {
				c++
			}
			if !worse(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := range p.Len() {
		if p.logPost(i) == math.Inf(-1) {
			continue
		}
		switch {
		case len(h) < k:
			h = append(h, i)
			for j := len(h) - 1; j > 0; {
				parent := (j - 1) / 2
				if !worse(h[j], h[parent]) {
					break
				}
				h[j], h[parent] = h[parent], h[j]
				j = parent
			}
		case worse(h[0], i):
			h[0] = i
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return h
}

// Gibbs draws a hypothesis at random from the posterior (Mitchell §6.8's
// Gibbs algorithm), with r.
func (p *Posterior) Gibbs(r *rand.Rand) int {
	p.cumOne.Do(func() {
		p.normalise()
		p.cum = make([]float64, p.Len())
		var sum float64
		for i := range p.cum {
			sum += math.Exp(p.logPost(i) - p.maxPost)
			p.cum[i] = sum
		}
	})
	u := r.Float64() * p.cum[len(p.cum)-1]
	i := sort.Search(len(p.cum), func(i int) bool { return p.cum[i] > u })
	return min(i, len(p.cum)-1)
}
