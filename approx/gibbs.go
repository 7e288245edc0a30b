package approx

import (
	"math"
	"math/rand/v2"
	"sync"
)

// Gibbs estimates p's marginals by Gibbs sampling, on Markov and Bayesian
// networks alike, with several chains.
//
// # Updates
//
// Each unobserved variable is drawn in turn (a sweep visits them all in
// increasing order) from its conditional given the others, the product of
// the factors that mention it (p.Factors and p.Likelihood; its Markov
// blanket), computed from flat index lists prepared per variable.
// Variables tied by deterministic zeros are updated as one block: a free
// variable that a factor can determine (a row of the factor, the others
// fixed, with a single positive entry) is joined to the factor's other
// free variables (union-find, in factor order) while the block has at
// most 256 joint states, and a
// block is drawn jointly from its exact conditional. Products that would
// underflow are taken in log space.
//
// # Chains
//
// Settings.Chains chains (default 4) start from dispersed states of
// positive probability, consistent with the evidence and the zeros (see
// gibbsstart.go: forward sampling with rejection on a Bayesian network, a
// min-conflicts search with restarts otherwise); a chain whose state
// turns out to have probability 0 is restarted from a new one. When no
// positive state is found, the evidence is taken to be impossible
// (ErrImpossible). Chain c draws from the stream (Seed, c), and all chains
// run the same number of sweeps in rounds, so that the numbers are the same
// on any number of Workers.
//
// # Estimates
//
// The marginals are Rao-Blackwellised: each sweep adds the conditional
// distribution each variable was drawn from (the block's marginals for a
// block), not the indicator of its state. The sweeps are summed in batches
// (at most 64 a chain; when full, neighbours are merged and the batch
// length doubles). The first quarter of the batches is burn-in and left
// out. Settings.Samples is the number of sweeps per chain (default 1000;
// until the Deadline when one is set and Samples is 0), rounded up to a
// whole batch.
//
// Result.Err[v][s] is a ~95 % half-width, the larger of 2.5 standard
// errors from the batch means' effective number (their pooled variance
// over their autocorrelation within chains, as Stan computes it: see
// gibbsESSVar) and the between-chain one (the chains' means' spread) times
// Student's t
// quantile for Chains−1 degrees of freedom (3.18 for 4 chains), so that
// chains that disagree are never hidden by each chain's own smoothness,
// and at least 3/N, N the sweeps kept over all chains (the rule of three:
// a state the chains never reached).
// Result.RHat is the largest rank-normalised split-R-hat over the
// marginals (Vehtari et al. 2021, the larger of bulk and folded; see
// rhat.go), on the kept batch means of the chains' halves, and Converged
// is RHat < 1.1; RHat is +Inf when there are too few batches to tell
// (fewer than 4 kept per chain), and huge when chains are stuck apart.
//
// Gibbs sampling does not estimate ln Z: LogZ is 0, LogZErr and LogZHi
// are +Inf and LogZLo is −Inf. Result.Iterations is the number of sweeps
// per chain. At the Deadline or Cancel it returns the estimate of the
// rounds done (Stopped set), or of the sweeps done when no round is
// complete, and ErrNoAnswer if no chain completed a sweep.
func Gibbs(p *Problem, s Settings) (*Result, error) {
	g, err := newGibbsNet(p)
	if err != nil {
		return nil, err
	}
	return g.run(s)
}

// gibbsMaxBlock is the largest number of joint states of a block.
const gibbsMaxBlock = 256

// gibbsDefaultSweeps is the number of sweeps per chain when Settings give
// neither Samples nor a Deadline.
const gibbsDefaultSweeps = 1000

// gibbsNet is a problem compiled for Gibbs sampling.
type gibbsNet struct {
	card, obs []int
	free      []int      // the unobserved variables that take part
	uoff      []int      // uoff[v]: v's first state in the flat estimates; -1 if v is not free
	utotal    int        // the free variables' number of states
	scopes    []smpScope // p.Factors then p.Likelihood
	refs      []gibbsRef // the factors that mention each free variable:
	refStart  []int      // v's are refs[refStart[v]:refStart[v+1]]
	units     []gibbsUnit
	bn        *fwdNet // the Bayesian network, for starting states; nil for a Markov network
	maxCard   int
	maxJoint  int
}

// gibbsRef is a factor that mentions a variable: its index in scopes and
// the variable's stride in it.
type gibbsRef struct {
	f      int32
	stride int32
}

// gibbsUnit is one update of a sweep: a free variable, or a block of them
// drawn jointly.
type gibbsUnit struct {
	vars []int // sorted; one variable for a single update
	fs   []int // the factors that mention the block (blocks only)
	size int   // the block's number of joint states
}

// newGibbsNet compiles p; ErrImpossible when a factor of the evidence
// alone is 0.
func newGibbsNet(p *Problem) (*gibbsNet, error) {
	smpCheckObs(p)
	n := len(p.Card)
	g := &gibbsNet{card: p.Card, obs: p.Obs, uoff: make([]int, n), refStart: make([]int, n+1)}
	if p.BN != nil {
		bn, err := newFwdNet(p)
		if err != nil {
			return nil, err
		}
		g.bn = bn
	}
	for v, c := range p.Card {
		g.uoff[v] = -1
		if c > 0 && p.Obs[v] < 0 {
			g.uoff[v] = g.utotal
			g.utotal += c
			g.free = append(g.free, v)
			g.maxCard = max(g.maxCard, c)
		}
	}
	for _, f := range p.Factors {
		g.scopes = append(g.scopes, smpScopeOf(p, f))
	}
	for _, f := range p.Likelihood {
		g.scopes = append(g.scopes, smpScopeOf(p, f))
	}
	// Factors per free variable, counted then placed.
	x := make([]int, n)
	for v, o := range p.Obs {
		if o >= 0 {
			x[v] = o
		}
	}
	for k := range g.scopes {
		sc := &g.scopes[k]
		nfree := 0
		for _, v := range sc.vars {
			if g.uoff[v] >= 0 {
				g.refStart[v+1]++
				nfree++
			}
		}
		if nfree == 0 && !(sc.at(x) > 0) {
			return nil, ErrImpossible
		}
	}
	for v := range n {
		g.refStart[v+1] += g.refStart[v]
	}
	g.refs = make([]gibbsRef, g.refStart[n])
	fill := append([]int(nil), g.refStart[:n]...)
	for k := range g.scopes {
		sc := &g.scopes[k]
		for i, v := range sc.vars {
			if g.uoff[v] >= 0 {
				g.refs[fill[v]] = gibbsRef{f: int32(k), stride: int32(sc.str[i])}
				fill[v]++
			}
		}
	}
	g.blocks()
	return g, nil
}

// blocks groups the free variables into update units: those of a factor
// with a zero entry joined while the block has at most gibbsMaxBlock
// joint states.
func (g *gibbsNet) blocks() {
	n := len(g.card)
	parent := make([]int, n)
	size := make([]int, n) // joint states of a root's block
	for v := range parent {
		parent[v] = v
		size[v] = max(1, g.card[v])
	}
	find := func(v int) int {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for k := range g.scopes {
		sc := &g.scopes[k]
		for i, v := range sc.vars {
			if g.uoff[v] < 0 || !smpDetermines(sc, i) {
				continue
			}
			for _, u := range sc.vars {
				if u == v || g.uoff[u] < 0 {
					continue
				}
				a, b := find(v), find(u)
				if a != b && size[a]*size[b] <= gibbsMaxBlock {
					parent[b] = a
					size[a] *= size[b]
				}
			}
		}
	}
	unit := make([]int, n)
	for v := range unit {
		unit[v] = -1
	}
	for _, v := range g.free {
		r := find(v)
		if unit[r] < 0 {
			unit[r] = len(g.units)
			g.units = append(g.units, gibbsUnit{size: size[r]})
		}
		u := &g.units[unit[r]]
		u.vars = append(u.vars, v)
	}
	seen := make([]int, len(g.scopes))
	for i := range g.units {
		u := &g.units[i]
		if len(u.vars) == 1 {
			continue
		}
		g.maxJoint = max(g.maxJoint, u.size)
		for _, v := range u.vars {
			for _, r := range g.refs[g.refStart[v]:g.refStart[v+1]] {
				if seen[r.f] != i+1 {
					seen[r.f] = i + 1
					u.fs = append(u.fs, int(r.f))
				}
			}
		}
	}
}

// smpDetermines reports whether the factor sc can determine its i-th
// variable: whether some row of it (the other variables fixed) has a
// single positive entry (or none), where a single-site update could not
// move the variable.
func smpDetermines(sc *smpScope, i int) bool {
	st := sc.str[i]
	c := len(sc.vals) / st
	if i > 0 {
		c = sc.str[i-1] / st
	}
	if c < 2 {
		return false
	}
	for b := range sc.vals {
		if (b/st)%c != 0 {
			continue
		}
		pos := 0
		for s := range c {
			if sc.vals[b+s*st] > 0 {
				pos++
			}
		}
		if pos <= 1 {
			return true
		}
	}
	return false
}

// gibbsChain is one chain's state and buffers.
type gibbsChain struct {
	rng      *rand.Rand
	x        []int
	cur      []float64   // the current batch's sums
	batches  [][]float64 // the batch means, in order
	done     int         // sweeps in the current batch
	cond     []float64
	joint    []float64
	restarts int
	dead     bool // no positive state found
	quit     bool // stopped midway through a round
}

// run samples the chains and returns the estimate.
func (g *gibbsNet) run(s Settings) (*Result, error) {
	m := s.Chains
	if m <= 0 {
		m = 4
	}
	st := smpStopper{s.Deadline, s.Cancel}
	target := s.Samples
	if target <= 0 && s.Deadline.IsZero() {
		target = gibbsDefaultSweeps
	}
	maxB := 64
	for maxB > 8 && m*maxB*g.utotal > 1<<23 {
		maxB /= 2
	}
	chains := make([]*gibbsChain, m)
	for c := range chains {
		ch := &gibbsChain{
			rng:   smpRNG(s.Seed, smpTagGibbs|uint64(c)),
			x:     make([]int, len(g.card)),
			cur:   make([]float64, g.utotal),
			cond:  make([]float64, g.maxCard),
			joint: make([]float64, g.maxJoint),
		}
		for v, o := range g.obs {
			if o >= 0 {
				ch.x[v] = o
			}
		}
		chains[c] = ch
	}
	workers := min(smpWorkers(s), m)
	// Starting states, each chain on its own stream.
	g.parallel(workers, chains, func(ch *gibbsChain) {
		ch.dead = !g.start(ch.rng, ch.x)
	})
	for _, ch := range chains {
		if ch.dead {
			return nil, ErrImpossible
		}
	}
	batch, sweeps, stopped := 1, 0, false
	for target <= 0 || sweeps < target {
		if st.stopped() {
			stopped = true
			break
		}
		g.parallel(workers, chains, func(ch *gibbsChain) {
			for ch.done < batch {
				if st.stopped() {
					ch.quit = true
					return
				}
				if !g.sweep(ch) {
					ch.dead = true
					return
				}
				ch.done++
			}
		})
		for _, ch := range chains {
			if ch.dead {
				return nil, ErrImpossible
			}
		}
		if gibbsAnyQuit(chains) {
			stopped = true
			break
		}
		sweeps += batch
		for _, ch := range chains {
			b := make([]float64, g.utotal)
			for j, x := range ch.cur {
				b[j] = x / float64(batch)
			}
			clear(ch.cur)
			ch.done = 0
			ch.batches = append(ch.batches, b)
		}
		if len(chains[0].batches) == maxB {
			for _, ch := range chains {
				for i := range maxB / 2 {
					a, b := ch.batches[2*i], ch.batches[2*i+1]
					for j := range a {
						a[j] = (a[j] + b[j]) / 2
					}
					ch.batches[i] = a
				}
				ch.batches = ch.batches[:maxB/2]
			}
			batch *= 2
		}
	}
	if len(chains[0].batches) == 0 {
		// No round complete: the sweeps done so far, chain by chain.
		for _, ch := range chains {
			if ch.done == 0 {
				return nil, ErrNoAnswer
			}
			b := make([]float64, g.utotal)
			for j, x := range ch.cur {
				b[j] = x / float64(ch.done)
			}
			ch.batches = append(ch.batches, b)
		}
		sweeps = chains[0].done
		batch = sweeps
		for _, ch := range chains {
			batch = min(batch, ch.done)
		}
	}
	r := g.estimate(chains, batch)
	r.Iterations, r.Stopped = sweeps, stopped
	return r, nil
}

// gibbsAnyQuit reports whether some chain stopped midway through the round.
func gibbsAnyQuit(chains []*gibbsChain) bool {
	for _, ch := range chains {
		if ch.quit {
			return true
		}
	}
	return false
}

// parallel calls f on every chain, chain c on goroutine c mod workers.
func (g *gibbsNet) parallel(workers int, chains []*gibbsChain, f func(*gibbsChain)) {
	if workers <= 1 {
		for _, ch := range chains {
			f(ch)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := w; c < len(chains); c += workers {
				f(chains[c])
			}
		}()
	}
	wg.Wait()
}

// sweep updates every unit of ch once, adding the conditionals to ch.cur;
// a chain found at a state of probability 0 is restarted (false if no
// positive state is found).
func (g *gibbsNet) sweep(ch *gibbsChain) bool {
	for i := range g.units {
		u := &g.units[i]
		var ok bool
		if len(u.vars) == 1 {
			ok = g.update(ch, u.vars[0])
		} else {
			ok = g.updateBlock(ch, u)
		}
		if !ok {
			ch.restarts++
			if ch.restarts > gibbsRestarts || !g.start(ch.rng, ch.x) {
				return false
			}
		}
	}
	return true
}

// update draws v from its conditional and adds the conditional to ch.cur;
// false if every state has probability 0.
func (g *gibbsNet) update(ch *gibbsChain, v int) bool {
	c := g.card[v]
	cond := ch.cond[:c]
	for s := range cond {
		cond[s] = 1
	}
	x := ch.x
	refs := g.refs[g.refStart[v]:g.refStart[v+1]]
	for _, r := range refs {
		sc := &g.scopes[r.f]
		i := 0
		for k, u := range sc.vars {
			i += x[u] * sc.str[k]
		}
		st := int(r.stride)
		i -= x[v] * st
		for s := range cond {
			cond[s] *= sc.vals[i+s*st]
		}
	}
	t := 0.0
	for _, w := range cond {
		t += w
	}
	if !(t > 1e-280) || math.IsInf(t, 1) {
		t = g.logCond(ch, v, refs)
		if !(t > 0) {
			return false
		}
	}
	off := g.uoff[v]
	for s, w := range cond {
		ch.cur[off+s] += w / t
	}
	// Draw the first state whose cumulative weight exceeds u.
	u := ch.rng.Float64() * t
	acc, pick := 0.0, x[v]
	for s, w := range cond {
		if w <= 0 {
			continue
		}
		acc += w
		pick = s
		if u < acc {
			break
		}
	}
	x[v] = pick
	return true
}

// logCond recomputes v's conditional in log space into ch.cond, scaled so
// that its largest entry is 1, and returns its sum (0 if every state has
// probability 0).
func (g *gibbsNet) logCond(ch *gibbsChain, v int, refs []gibbsRef) float64 {
	c := g.card[v]
	cond := ch.cond[:c]
	x := ch.x
	for s := range cond {
		cond[s] = 0
	}
	for _, r := range refs {
		sc := &g.scopes[r.f]
		i := 0
		for k, u := range sc.vars {
			i += x[u] * sc.str[k]
		}
		st := int(r.stride)
		i -= x[v] * st
		for s := range cond {
			cond[s] += math.Log(sc.vals[i+s*st])
		}
	}
	return smpExpNorm(cond)
}

// smpExpNorm replaces the log weights l by exp(l − max l) and returns
// their sum (0 when every one is −Inf).
func smpExpNorm(l []float64) float64 {
	m := math.Inf(-1)
	for _, x := range l {
		if !math.IsNaN(x) {
			m = max(m, x)
		}
	}
	if math.IsInf(m, -1) || math.IsInf(m, 1) {
		for i := range l {
			l[i] = 0
		}
		return 0
	}
	t := 0.0
	for i, x := range l {
		w := 0.0
		if !math.IsNaN(x) {
			w = math.Exp(x - m)
		}
		l[i] = w
		t += w
	}
	return t
}

// updateBlock draws the variables of the block u jointly from their
// conditional given the others (in log space if it would underflow), and adds each
// one's marginal of it to ch.cur; false if every joint state has
// probability 0.
func (g *gibbsNet) updateBlock(ch *gibbsChain, u *gibbsUnit) bool {
	x := ch.x
	joint := ch.joint[:u.size]
	for _, v := range u.vars {
		x[v] = 0
	}
	logs := false
again:
	for j := range joint {
		l := 1.0
		if logs {
			l = 0
		}
		for _, k := range u.fs {
			if logs {
				l += math.Log(g.scopes[k].at(x))
			} else {
				l *= g.scopes[k].at(x)
			}
		}
		joint[j] = l
		// Next joint state, the last variable fastest.
		for k := len(u.vars) - 1; k >= 0; k-- {
			v := u.vars[k]
			x[v]++
			if x[v] < g.card[v] {
				break
			}
			x[v] = 0
		}
	}
	var t float64
	if logs {
		t = smpExpNorm(joint)
	} else {
		for _, w := range joint {
			t += w
		}
		if !(t > 1e-280) || math.IsInf(t, 1) {
			logs = true
			goto again
		}
	}
	if !(t > 0) {
		return false
	}
	r := ch.rng.Float64() * t
	pick, acc := -1, 0.0
	for j, w := range joint {
		if w <= 0 {
			continue
		}
		acc += w
		pick = j
		if r < acc {
			break
		}
	}
	// Decode pick into the block's states, and add the marginals.
	rest := pick
	for k := len(u.vars) - 1; k >= 0; k-- {
		v := u.vars[k]
		x[v] = rest % g.card[v]
		rest /= g.card[v]
	}
	stride := 1
	for k := len(u.vars) - 1; k >= 0; k-- {
		v := u.vars[k]
		c := g.card[v]
		off := g.uoff[v]
		for j, w := range joint {
			if w > 0 {
				ch.cur[off+(j/stride)%c] += w / t
			}
		}
		stride *= c
	}
	return true
}

// estimate returns the marginals, errors and R-hat of the chains' batch
// means of batch sweeps each, the first quarter left out as burn-in.
func (g *gibbsNet) estimate(chains []*gibbsChain, batch int) *Result {
	m := len(chains)
	nb := len(chains[0].batches)
	drop := nb / 4
	k := nb - drop
	r := &Result{Engine: "gibbs", LogZ: 0, LogZErr: math.Inf(1), LogZLo: math.Inf(-1), LogZHi: math.Inf(1)}
	r.Marg = make([][]float64, len(g.card))
	r.Err = make([][]float64, len(g.card))
	// The rule of three: a number estimated from N sweeps in all may be
	// off by 3/N whatever the chains' agreement (a state the chains never
	// reached, a tiny probability whose conditionals are 0 wherever they
	// went).
	floor := max(smpErrFloor, 3/float64(m*k*batch))
	tq := math.Inf(1)
	if m >= 2 {
		tq = studentT975(m - 1)
	}
	half := k / 2 // batches per half chain, for split-R-hat
	rhat := 1.0
	if half < 2 {
		rhat = math.Inf(1)
	}
	means := make([]float64, m)
	acov := make([]float64, k)
	var rh rhatBuf
	for v, c := range g.card {
		if c == 0 {
			continue
		}
		mg := make([]float64, c)
		er := make([]float64, c)
		r.Marg[v], r.Err[v] = mg, er
		if o := g.obs[v]; o >= 0 {
			mg[o] = 1
			continue
		}
		for s := range c {
			j := g.uoff[v] + s
			mu, w := 0.0, 0.0
			for ci, ch := range chains {
				kept := ch.batches[drop:]
				a := 0.0
				for _, b := range kept {
					a += b[j]
				}
				a /= float64(k)
				means[ci] = a
				mu += a
				if k >= 2 {
					ss := 0.0
					for _, b := range kept {
						d := b[j] - a
						ss += d * d
					}
					w += ss / float64(k-1)
				}
			}
			mu /= float64(m)
			w /= float64(m)
			e := math.Inf(1)
			switch {
			case k >= 4:
				e = smpZ * math.Sqrt(gibbsESSVar(chains, drop, j, means, mu, w, acov))
			case k >= 2:
				e = smpZ * math.Sqrt(w/float64(m*k))
			}
			if m >= 2 {
				b := 0.0
				for _, a := range means {
					b += (a - mu) * (a - mu)
				}
				eb := tq * math.Sqrt(b/float64(m*(m-1)))
				if math.IsInf(e, 1) {
					e = eb
				} else {
					e = max(e, eb)
				}
			}
			mg[s] = min(1, max(0, mu))
			er[s] = min(1, max(e, floor))
			// A binary variable's second state mirrors its first (ranks
			// reversed, the same R-hat).
			if half >= 2 && (c != 2 || s == 0) {
				rhat = max(rhat, rh.of(chains, drop+k-2*half, half, j))
			}
		}
		smpNormRow(mg)
	}
	r.RHat = rhat
	r.Converged = rhat < 1.1
	return r
}

// gibbsESSVar returns the variance of the mean of entry j of the chains' kept
// batch means (from drop on) through their effective number, as Stan
// computes it (Vehtari et al. 2021, §3.2): the autocorrelations of the
// batch means averaged over the chains, ρ_t = 1 − (W − acov_t)/var+,
// summed in pairs while positive and decreasing (Geyer's initial monotone
// sequence), ESS = M·k/τ with τ = −1 + 2·Σ pairs, at most M·k. means are
// the chains' means, mu their mean and w the mean within-chain variance;
// acov is a buffer of k entries. Correlation left between batches (a
// batch shorter than the chain's autocorrelation time) so widens the
// error instead of hiding in it.
func gibbsESSVar(chains []*gibbsChain, drop, j int, means []float64, mu, w float64, acov []float64) float64 {
	m := len(chains)
	k := len(chains[0].batches) - drop
	fk := float64(k)
	// acov(t): the chains' mean autocovariance at lag t, computed as
	// Geyer's sum reaches it (it usually stops after a few lags).
	for t := range acov {
		acov[t] = math.NaN()
	}
	at := func(t int) float64 {
		if math.IsNaN(acov[t]) {
			acov[t] = 0
			for ci, ch := range chains {
				y := ch.batches[drop:]
				a := means[ci]
				c := 0.0
				for i := 0; i+t < k; i++ {
					c += (y[i][j] - a) * (y[i+t][j] - a)
				}
				acov[t] += c / fk / float64(m)
			}
		}
		return acov[t]
	}
	bn := 0.0 // B/k: the variance of the chains' means
	if m >= 2 {
		for _, a := range means {
			bn += (a - mu) * (a - mu)
		}
		bn /= float64(m - 1)
	}
	vp := (fk-1)/fk*w + bn
	if !(vp > 0) {
		return 0
	}
	rho := func(t int) float64 { return 1 - (w-at(t)*fk/(fk-1))/vp }
	tau, prev := -1.0, math.Inf(1)
	for t := 0; t+1 < k; t += 2 {
		p := rho(t) + rho(t+1)
		if !(p > 0) {
			break
		}
		p = min(p, prev)
		prev = p
		tau += 2 * p
	}
	ess := min(float64(m)*fk, float64(m)*fk/max(tau, 1e-9))
	return vp / ess
}
