package pbl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pbl-lang/pbl/dbn"
	"github.com/pbl-lang/pbl/ir"
)

// This file is the approximate filter of pbl sequence, for slices too
// wide for the exact engines: a particle filter (sequential importance
// resampling; Doucet, de Freitas and Gordon, "Sequential Monte Carlo
// Methods in Practice", 2001, ch. 1). Each particle carries the last
// Order+1 slices' values and the static variables'; a step draws the
// slice's unobserved variables from the template's distributions given
// the particle's parents (the bootstrap proposal), weighs it by the
// likelihood of the slice's observations, and resamples (systematically)
// when the effective sample size falls below half the particles. Memory
// is constant in the sequence's length. Every probability comes with its
// standard error (the delta method for a self-normalised estimate), and
// ln P(observations) with the sum of the steps' (each step's mean
// weight's relative standard error, an estimate of the error of its
// logarithm).

// DefaultParticles is the number of particles when SeqOptions.Particles
// is 0.
const DefaultParticles = 10000

// ErrParticle is the kind of error of a model the particle filter cannot
// sample: a distribution other than a table or a normal density, or a
// real variable's density with a real parent that has no value.
var ErrParticle = errors.New("a model the particle filter cannot sample")

// pnode is one variable of a slice's plan, in topological order.
type pnode struct {
	k       int     // time variable, or -1-j for static j
	dist    ir.Dist // its distribution
	table   *ir.CPT
	parents []pref // in the order of the distribution's parents (tables: Factor order minus the child)
	reals   []pref // a Gaussian's real parents
	card    []int  // the discrete parents' numbers of states
	states  int
}

// pref is a parent: time variable k at lag (0: this slice), or static j
// (k = -1-j).
type pref struct{ k, lag int }

type particlePlan struct {
	m       *ir.Model
	order   int
	statics []ir.VarID
	slice   [][]pnode // slice[ts]: the plan of slice ts, ts ≤ Horizon
	static  []pnode
}

func newParticlePlan(m *ir.Model) (*particlePlan, error) {
	t := m.Time
	pl := &particlePlan{m: m, order: t.Order, statics: Statics(m)}
	where := map[ir.VarID]pref{}
	for k, tv := range t.Vars {
		for s, v := range tv.Slices {
			where[v] = pref{k, s} // lag filled in per slice below
		}
	}
	for j, v := range pl.statics {
		where[v] = pref{-1 - j, 0}
	}
	node := func(v ir.VarID, k, ts int) (pnode, error) {
		n := pnode{k: k, dist: m.Dists[v], states: len(m.Vars[v].States)}
		ref := func(p ir.VarID) pref {
			r := where[p]
			if r.k >= 0 {
				r.lag = ts - r.lag
			}
			return r
		}
		switch d := m.Dists[v].(type) {
		case *ir.Gaussian:
			for _, p := range d.Parents {
				n.parents = append(n.parents, ref(p))
				n.card = append(n.card, len(m.Vars[p].States))
			}
			for _, p := range d.Real {
				n.reals = append(n.reals, ref(p))
			}
		default:
			tab := m.Table(v)
			if tab == nil {
				return n, fmt.Errorf("%s: the particle filter samples tables and normal densities: %w", m.Vars[v].Name, ErrParticle)
			}
			n.table = tab
			for _, p := range tab.Factor.Vars[:len(tab.Factor.Vars)-1] {
				n.parents = append(n.parents, ref(p))
				n.card = append(n.card, len(m.Vars[p].States))
			}
		}
		return n, nil
	}
	// Statics in a topological order among themselves.
	done := map[ir.VarID]bool{}
	for len(pl.static) < len(pl.statics) {
		progress := false
		for j, v := range pl.statics {
			if done[v] {
				continue
			}
			ready := true
			for _, p := range m.Parents[v] {
				ready = ready && done[p]
			}
			if !ready {
				continue
			}
			n, err := node(v, -1-j, 0)
			if err != nil {
				return nil, err
			}
			pl.static = append(pl.static, n)
			done[v] = true
			progress = true
		}
		if !progress {
			return nil, fmt.Errorf("the static variables' parents: %w", ErrParticle)
		}
	}
	for ts := 0; ts <= t.Horizon; ts++ {
		var plan []pnode
		placed := make([]bool, len(t.Vars))
		for len(plan) < len(t.Vars) {
			progress := false
			for k, tv := range t.Vars {
				v := tv.Slices[ts]
				if placed[k] {
					continue
				}
				ready := true
				for _, p := range m.Parents[v] {
					if r, ok := where[p]; ok && r.k >= 0 && r.lag == ts && !placed[r.k] {
						ready = false
					}
				}
				if !ready {
					continue
				}
				n, err := node(v, k, ts)
				if err != nil {
					return nil, err
				}
				if n.dist == nil {
					return nil, fmt.Errorf("%s has no distribution: %w", m.Vars[v].Name, ErrParticle)
				}
				plan = append(plan, n)
				placed[k] = true
				progress = true
			}
			if !progress {
				return nil, fmt.Errorf("a cycle within slice %d: %w", ts, ErrParticle)
			}
		}
		pl.slice = append(pl.slice, plan)
	}
	return pl, nil
}

// particles holds every particle's values, flat: for particle i, time
// variable k at step t at hist[i*depth*K + (t mod depth)*K + k], static j
// at stat[i*S+j]; spare buffers of the same sizes for resampling.
type particles struct {
	n, K, S, depth int
	hist, stat     []float64
	hist2, stat2   []float64
	w              []float64 // the weights, normalised to mean 1 after each step
	lw             []float64 // each weight's natural-log factor of this step's observations
}

func (ps *particles) at(i, k, t int) *float64 {
	return &ps.hist[i*ps.depth*ps.K+(t%ps.depth)*ps.K+k]
}

func (ps *particles) value(i int, r pref, t int) float64 {
	if r.k < 0 {
		return ps.stat[i*ps.S-1-r.k]
	}
	return *ps.at(i, r.k, t-r.lag)
}

// draw samples, or weighs by the observation obs (missing: -1 or NaN),
// node n for particle i at step t (-1: statics), setting its value at
// dst; it returns the natural log of the likelihood factor (a density
// far in a normal's tail, exp(-800), is a finite log, never 0).
func (pl *particlePlan) draw(ps *particles, n *pnode, i, t int, obs float64, dst *float64, r *rand.Rand) (float64, error) {
	row := 0
	for j, p := range n.parents {
		row = row*n.card[j] + int(ps.value(i, p, t))
	}
	if n.table != nil {
		probs := n.table.Factor.Vals[row*n.states : (row+1)*n.states]
		if obs >= 0 {
			*dst = obs
			return math.Log(probs[int(obs)]), nil
		}
		u := r.Float64()
		s := 0
		for ; s < n.states-1; s++ {
			u -= probs[s]
			if u < 0 {
				break
			}
		}
		*dst = float64(s)
		return 0, nil
	}
	g := n.dist.(*ir.Gaussian)
	mean := g.Mean[row]
	for j, p := range n.reals {
		x := ps.value(i, p, t)
		if math.IsNaN(x) {
			return 0, fmt.Errorf("a real parent without a value: %w", ErrParticle)
		}
		mean += g.Coef[row*len(n.reals)+j] * x
	}
	sd := g.SD[row]
	if !math.IsNaN(obs) {
		*dst = obs
		z := (obs - mean) / sd
		return -0.5*z*z - math.Log(sd*math.Sqrt(2*math.Pi)), nil
	}
	*dst = mean + sd*r.NormFloat64()
	return 0, nil
}

// particleAnswer answers Filter or Predict for s with the particle
// filter.
func particleAnswer(m *ir.Model, s *Sequence, task SeqTask, targets []int, steps, n int, seed uint64) (*SeqAnswer, error) {
	if task != Filter && task != Predict {
		return nil, fmt.Errorf("the particle filter answers filter and predict, not %s: %w", task, ErrSeqTask)
	}
	pl, err := newParticlePlan(m)
	if err != nil {
		return nil, err
	}
	for j, v := range pl.statics {
		// A real static variable without a value is drawn once per
		// particle and never moved: where the observations pin it far
		// from its prior, resampling leaves a few of its draws and the
		// answer is biased beyond its error (0.31 ± 0.02 against an exact
		// 0.58 with 1,000 particles). Refused rather than printed.
		if x := m.Vars[v]; !x.Discrete() && (j >= len(s.Static) || isMissing(x, s.Static[j])) {
			return nil, fmt.Errorf("the static real variable %s has no value in the sequence: the particle filter would draw it once per particle and never move it, and its answers would be biased beyond their error; give its value (a column %s): %w", x.Name, x.Name, ErrParticle)
		}
	}
	if n <= 0 {
		n = DefaultParticles
	}
	K := len(m.Time.Vars)
	S, depth := len(pl.statics), pl.order+1
	// Each particle holds its values twice (the spare buffers resampling
	// copies into), its weight and its step's log factor: 8 bytes each.
	if uint64(n)*uint64(2*(depth*K+S)+2) > 1<<28 {
		return nil, fmt.Errorf("%d particles of %d values each would take more than 2 GiB: %w", n, depth*K+S, ErrSeqTask)
	}
	ps := &particles{n: n, K: K, S: S, depth: depth,
		hist: make([]float64, n*depth*K), hist2: make([]float64, n*depth*K),
		stat: make([]float64, n*S), stat2: make([]float64, n*S), w: make([]float64, n), lw: make([]float64, n)}
	for i := range ps.w {
		ps.w[i] = 1
	}
	r := rand.New(rand.NewPCG(seed, 0x5e9))
	// The answers (a distribution and its standard errors per step and
	// target), within the interface algorithm's limit: --steps 10^9 was
	// an allocation of 16 GB.
	rows, width := len(s.Steps), 0
	if task == Predict {
		rows = steps
	}
	for _, k := range targets {
		width += len(m.Vars[m.Time.Vars[k].Slices[0]].States)
	}
	if need := float64(rows) * float64(width) * 16; need > float64(dbn.MaxBytes) {
		return nil, &dbn.TooLargeError{What: "the answers", Size: int64(min(need, math.MaxInt64)), Limit: dbn.MaxBytes, Unit: "bytes"}
	}
	a := &SeqAnswer{Seq: s, Task: task, Targets: targets, Engine: "particle"}
	if task == Filter {
		a.rows = newRows(m, targets, 0, len(s.Steps), false, true)
	} else {
		a.rows = newRows(m, targets, len(s.Steps), steps, false, true)
	}
	var lerr float64
	// weigh multiplies each weight by its factor of the step, exp(lw),
	// scaled by the largest (so that factors that would each underflow
	// float64 keep their ratios), and adds ln of their mean to LogP.
	weigh := func() error {
		top := math.Inf(-1)
		for i, w := range ps.w {
			ps.lw[i] += math.Log(w)
			top = max(top, ps.lw[i])
		}
		if math.IsInf(top, -1) || math.IsNaN(top) {
			return fmt.Errorf("%w: no particle explains the observations (every weight is 0; more particles may find one)", ErrImpossibleSeq)
		}
		sum, sq := 0.0, 0.0
		for i := range ps.w {
			w := math.Exp(ps.lw[i] - top)
			ps.w[i], ps.lw[i] = w, 0
			sum += w
			sq += w * w
		}
		mean := sum / float64(n)
		a.LogP += top + math.Log(mean)
		// The relative standard error of the mean weight: that of its
		// logarithm, to first order.
		v := sq/float64(n) - mean*mean
		lerr += math.Sqrt(max(v, 0)/float64(n)) / mean
		for i := range ps.w {
			ps.w[i] /= mean
		}
		return nil
	}
	// Statics first: drawn once per particle, weighed by their
	// observations.
	for i := range n {
		for _, nd := range pl.static {
			j := -1 - nd.k
			obs := s.Static[j]
			l, err := pl.draw(ps, &nd, i, 0, obs, &ps.stat[i*S+j], r)
			if err != nil {
				return nil, err
			}
			ps.lw[i] += l
		}
	}
	step := func(t int, obs []float64) error {
		plan := pl.slice[min(t, m.Time.Horizon)]
		for i := range n {
			for x := range plan {
				nd := &plan[x]
				o := missingOf(m.Vars[m.Time.Vars[nd.k].Slices[0]])
				if obs != nil {
					o = obs[nd.k]
				}
				l, err := pl.draw(ps, nd, i, t, o, ps.at(i, nd.k, t), r)
				if err != nil {
					return err
				}
				ps.lw[i] += l
			}
		}
		return nil
	}
	estimate := func(t int) ([][]float64, [][]float64) {
		post := make([][]float64, len(targets))
		errs := make([][]float64, len(targets))
		sum := 0.0
		for _, w := range ps.w {
			sum += w
		}
		for x, k := range targets {
			p := make([]float64, len(m.Vars[m.Time.Vars[k].Slices[0]].States))
			for i, w := range ps.w {
				p[int(*ps.at(i, k, t))] += w / sum
			}
			e := make([]float64, len(p))
			for st := range p {
				v := 0.0
				for i, w := range ps.w {
					ind := 0.0
					if int(*ps.at(i, k, t)) == st {
						ind = 1
					}
					d := w / sum * (ind - p[st])
					v += d * d
				}
				e[st] = math.Sqrt(v)
			}
			post[x], errs[x] = p, e
		}
		return post, errs
	}
	T := len(s.Steps)
	for t := range T {
		if err := step(t, s.Steps[t]); err != nil {
			return nil, err
		}
		if err := weigh(); err != nil {
			return nil, fmt.Errorf("step %d: %w", t, err)
		}
		if task == Filter {
			p, e := estimate(t)
			a.rows.setPost(t, p)
			a.rows.setErrs(t, e)
		}
		resample(ps, r)
	}
	if task == Predict {
		for t := T; t < T+steps; t++ {
			if err := step(t, nil); err != nil {
				return nil, err
			}
			p, e := estimate(t)
			a.rows.setPost(t-T, p)
			a.rows.setErrs(t-T, e)
		}
	}
	a.LogPErr = lerr
	return a, nil
}

// ErrImpossibleSeq is the kind of error of observations that no particle
// explains.
var ErrImpossibleSeq = errors.New("the observations are impossible")

// resample replaces the particles by a systematic resample of them, in
// proportion to their weights, when the effective sample size is below
// half their number; the weights are then 1.
func resample(ps *particles, r *rand.Rand) {
	sum, sq := 0.0, 0.0
	for _, w := range ps.w {
		sum += w
		sq += w * w
	}
	if sum*sum/sq >= float64(ps.n)/2 {
		return
	}
	n := ps.n
	hw, sw := ps.depth*ps.K, ps.S
	u := r.Float64() / float64(n)
	c := ps.w[0] / sum
	i := 0
	for j := range n {
		x := u + float64(j)/float64(n)
		for x > c && i < n-1 {
			i++
			c += ps.w[i] / sum
		}
		copy(ps.hist2[j*hw:(j+1)*hw], ps.hist[i*hw:(i+1)*hw])
		copy(ps.stat2[j*sw:(j+1)*sw], ps.stat[i*sw:(i+1)*sw])
	}
	ps.hist, ps.hist2 = ps.hist2, ps.hist
	ps.stat, ps.stat2 = ps.stat2, ps.stat
	for j := range ps.w {
		ps.w[j] = 1
	}
}
