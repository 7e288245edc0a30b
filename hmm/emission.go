package hmm

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Emission is the distribution of an observation given its hidden state:
// *Categorical or *Gaussian. The interface is sealed: the kinds are this
// package's.
type Emission interface {
	// validate checks the emission's shape and numbers for k states.
	validate(k int) error
	// seqLen returns the number of steps of s, checking every observation.
	seqLen(s Seq) (int, error)
	// prepare returns the emission's log-densities, ready to evaluate.
	prepare(k int) emitter
	// initStats sizes and centres st's emission statistics.
	initStats(st *Stats, k int)
	// accum adds step t of s, in state k with weight gamma[k], to st.
	accum(st *Stats, s Seq, t int, gamma []float64)
	// mstep returns the emission that maximises the expected
	// log-likelihood of st's statistics, gathered under this emission.
	mstep(st *Stats, p Prior) (Emission, error)
	// logPrior returns the Dirichlet prior's log-density of the emission,
	// up to a constant.
	logPrior(p Prior, k int) float64
	// random returns a random emission of the same shape for k states,
	// from the data's moments.
	random(k int, seqs []Seq, r *rand.Rand) Emission
}

// emitter evaluates an emission's log-densities.
type emitter interface {
	// logProbs sets dst[(t-lo)*K+k] to log P(x_t | z_t = k) for t in [lo,
	// hi): 0 where x_t is missing.
	logProbs(s Seq, lo, hi int, dst []float64)
}

// Categorical is the emission of one of M symbols: Prob[k*M+m] is the
// probability of symbol m in state k.
type Categorical struct {
	M    int       // the number of symbols, at least 1
	Prob []float64 // K×M, row-major; each row a distribution
}

// Gaussian is the emission of D real values, independent normals given
// the state (a diagonal covariance): value d in state k has mean
// Mean[k*D+d] and variance Var[k*D+d]. D = 1 is the univariate Gaussian
// HMM.
type Gaussian struct {
	D    int       // the number of values at a step, at least 1
	Mean []float64 // K×D, row-major, finite
	Var  []float64 // K×D, row-major, positive and finite
}

func (c *Categorical) validate(k int) error {
	if c.M < 1 {
		return errorf(ErrShape, "categorical emission with %d symbols: need at least 1", c.M)
	}
	if c.M > math.MaxInt32 || int64(len(c.Prob)) != int64(k)*int64(c.M) {
		return errorf(ErrShape, "categorical emission has %d probabilities for %d states and %d symbols", len(c.Prob), k, c.M)
	}
	for i := range k {
		if err := checkDist(c.Prob[i*c.M:(i+1)*c.M], "emission row "+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

func (g *Gaussian) validate(k int) error {
	if g.D < 1 {
		return errorf(ErrShape, "Gaussian emission with %d dimensions: need at least 1", g.D)
	}
	n := int64(k) * int64(g.D)
	if g.D > math.MaxInt32 || int64(len(g.Mean)) != n || int64(len(g.Var)) != n {
		return errorf(ErrShape, "Gaussian emission has %d means and %d variances for %d states of %d dimensions", len(g.Mean), len(g.Var), k, g.D)
	}
	for i, m := range g.Mean {
		if math.IsNaN(m) || math.IsInf(m, 0) {
			return errorf(ErrNotFinite, "mean %d of state %d is %v", i%g.D, i/g.D, m)
		}
	}
	for i, v := range g.Var {
		// A subnormal variance has lost digits, and 1/(2v) overflows.
		if !(v >= 0x1p-1022) || math.IsInf(v, 1) {
			return errorf(ErrVariance, "variance %d of state %d is %v", i%g.D, i/g.D, v)
		}
	}
	return nil
}

func (c *Categorical) seqLen(s Seq) (int, error) {
	if s.X != nil {
		return 0, seqErrorf(ErrShape, -1, -1, "real values for a categorical emission")
	}
	for t, v := range s.Sym {
		if v < -1 || v >= c.M {
			return 0, seqErrorf(ErrObservation, -1, t, "symbol %d at step %d is outside [0, %d)", v, t, c.M)
		}
	}
	return len(s.Sym), nil
}

func (g *Gaussian) seqLen(s Seq) (int, error) {
	if s.Sym != nil {
		return 0, seqErrorf(ErrShape, -1, -1, "symbols for a Gaussian emission")
	}
	if len(s.X)%g.D != 0 {
		return 0, seqErrorf(ErrShape, -1, -1, "%d values are not a whole number of steps of %d", len(s.X), g.D)
	}
	for i, v := range s.X {
		if math.IsInf(v, 0) {
			return 0, seqErrorf(ErrNotFinite, -1, i/g.D, "value %d at step %d is %v", i%g.D, i/g.D, v)
		}
	}
	return len(s.X) / g.D, nil
}

// catEmitter holds a categorical emission's log-probabilities by symbol,
// logT[m*K+k] = log Prob[k*M+m], and the same scaled as engine.emit
// scales them: scaled[m*K+k] = Prob[k*M+m] / max_k Prob[k*M+m] and
// logMax[m] the log of that maximum (0 and 0 for a symbol no state
// emits).
type catEmitter struct {
	k              int
	logT, scaled   []float64
	logMax, noData []float64
}

func (c *Categorical) prepare(k int) emitter {
	e := &catEmitter{k: k, logT: make([]float64, k*c.M), scaled: make([]float64, k*c.M),
		logMax: make([]float64, c.M), noData: make([]float64, k)}
	for i := range e.noData {
		e.noData[i] = 1
	}
	for m := range c.M {
		mx := 0.0
		for i := range k {
			p := c.Prob[i*c.M+m]
			e.logT[m*k+i] = math.Log(p)
			mx = max(mx, p)
		}
		if mx == 0 {
			continue
		}
		e.logMax[m] = math.Log(mx)
		for i := range k {
			e.scaled[m*k+i] = c.Prob[i*c.M+m] / mx
		}
	}
	return e
}

// scaledProbs sets b and m for steps [lo, hi) as engine.emit does, without
// logarithms.
func (e *catEmitter) scaledProbs(s Seq, lo, hi int, b, m []float64) {
	k := e.k
	for t := lo; t < hi; t++ {
		row := b[(t-lo)*k : (t-lo+1)*k]
		if sym := s.Sym[t]; sym >= 0 {
			copy(row, e.scaled[sym*k:(sym+1)*k])
			m[t-lo] = e.logMax[sym]
		} else {
			copy(row, e.noData)
			m[t-lo] = 0
		}
	}
}

func (e *catEmitter) logProbs(s Seq, lo, hi int, dst []float64) {
	k := e.k
	for t := lo; t < hi; t++ {
		row := dst[(t-lo)*k : (t-lo+1)*k]
		if m := s.Sym[t]; m >= 0 {
			copy(row, e.logT[m*k:(m+1)*k])
		} else {
			clear(row)
		}
	}
}

// gaussEmitter holds a Gaussian emission's constants: the log-density of
// x in state k, dimension d, is norm[i] - (x - mean[i])² half[i], i =
// k*D+d.
type gaussEmitter struct {
	k, d             int
	mean, norm, half []float64
}

func (g *Gaussian) prepare(k int) emitter {
	n := k * g.D
	e := &gaussEmitter{k: k, d: g.D, mean: g.Mean, norm: make([]float64, n), half: make([]float64, n)}
	for i, v := range g.Var {
		e.norm[i] = -0.5 * math.Log(2*math.Pi*v)
		e.half[i] = 0.5 / v
	}
	return e
}

func (e *gaussEmitter) logProbs(s Seq, lo, hi int, dst []float64) {
	k, d := e.k, e.d
	if d == 1 {
		mean, norm, half := e.mean[:k], e.norm[:k], e.half[:k]
		for t := lo; t < hi; t++ {
			row := dst[(t-lo)*k : (t-lo+1)*k]
			x := s.X[t]
			if x != x { // NaN: missing
				clear(row)
				continue
			}
			for i := range row {
				dx := x - mean[i]
				row[i] = norm[i] - dx*dx*half[i]
			}
		}
		return
	}
	for t := lo; t < hi; t++ {
		row := dst[(t-lo)*k : (t-lo+1)*k]
		xs := s.X[t*d : (t+1)*d]
		for i := range row {
			sum := 0.0
			for j, x := range xs {
				if x != x {
					continue
				}
				dx := x - e.mean[i*d+j]
				sum += e.norm[i*d+j] - dx*dx*e.half[i*d+j]
			}
			row[i] = sum
		}
	}
}

func (c *Categorical) initStats(st *Stats, k int) {
	st.Count = make([]float64, k*c.M)
}

func (g *Gaussian) initStats(st *Stats, k int) {
	n := k * g.D
	st.Count, st.Sum, st.SumSq = make([]float64, n), make([]float64, n), make([]float64, n)
	st.Center = append([]float64(nil), g.Mean...)
}

func (c *Categorical) accum(st *Stats, s Seq, t int, gamma []float64) {
	m := s.Sym[t]
	if m < 0 {
		return
	}
	for i, g := range gamma {
		st.Count[i*c.M+m] += g
	}
}

func (g *Gaussian) accum(st *Stats, s Seq, t int, gamma []float64) {
	d := g.D
	if d == 1 {
		x := s.X[t]
		if x != x {
			return
		}
		k := len(gamma)
		cnt, sum, sq, c := st.Count[:k], st.Sum[:k], st.SumSq[:k], st.Center[:k]
		for i, w := range gamma {
			dx := x - c[i]
			wd := w * dx
			cnt[i] += w
			sum[i] += wd
			sq[i] += wd * dx
		}
		return
	}
	xs := s.X[t*d : (t+1)*d]
	for i, w := range gamma {
		for j, x := range xs {
			if x != x {
				continue
			}
			l := i*d + j
			dx := x - st.Center[l]
			st.Count[l] += w
			st.Sum[l] += w * dx
			st.SumSq[l] += w * dx * dx
		}
	}
}

func (c *Categorical) mstep(st *Stats, p Prior) (Emission, error) {
	k, m := len(c.Prob)/c.M, c.M
	out := &Categorical{M: m, Prob: make([]float64, k*m)}
	for i := range k {
		row := out.Prob[i*m : (i+1)*m]
		n := 0.0
		for j := range m {
			n += st.Count[i*m+j] + p.Emit
		}
		if !(n > 0) {
			copy(row, c.Prob[i*m:(i+1)*m]) // a state never visited keeps its row
			continue
		}
		for j := range row {
			row[j] = (st.Count[i*m+j] + p.Emit) / n
		}
	}
	return out, nil
}

func (g *Gaussian) mstep(st *Stats, p Prior) (Emission, error) {
	floor := p.varFloor()
	out := &Gaussian{D: g.D, Mean: make([]float64, len(g.Mean)), Var: make([]float64, len(g.Var))}
	for l, w := range st.Count {
		if !(w > 0) {
			out.Mean[l], out.Var[l] = g.Mean[l], g.Var[l] // never observed in this state
			continue
		}
		dm := st.Sum[l] / w
		out.Mean[l] = st.Center[l] + dm
		v := max(st.SumSq[l]/w-dm*dm, floor)
		if !(v >= 0x1p-1022) || math.IsInf(v, 1) || math.IsInf(out.Mean[l], 0) {
			return nil, errorf(ErrVariance, "variance %d of state %d is %v after the M-step", l%g.D, l/g.D, v)
		}
		out.Var[l] = v
	}
	return out, nil
}

func (c *Categorical) logPrior(p Prior, k int) float64 {
	return dirichletLog(p.Emit, c.Prob)
}

func (g *Gaussian) logPrior(p Prior, k int) float64 { return 0 }

// dirichletLog returns a Σ log p, the log-density of a symmetric
// Dirichlet prior with pseudo-count a (α−1) up to a constant; 0 if a is
// 0.
func dirichletLog(a float64, p []float64) float64 {
	if a == 0 {
		return 0
	}
	s := 0.0
	for _, v := range p {
		s += math.Log(v)
	}
	return a * s
}

func (c *Categorical) random(k int, _ []Seq, r *rand.Rand) Emission {
	out := &Categorical{M: c.M, Prob: make([]float64, k*c.M)}
	for i := range k {
		randomDist(out.Prob[i*c.M:(i+1)*c.M], r)
	}
	return out
}

// random draws each state's mean from a step chosen uniformly among all
// steps of the data (a missing value by its dimension's mean) and gives
// every state the data's variance in each dimension.
func (g *Gaussian) random(k int, seqs []Seq, r *rand.Rand) Emission {
	d := g.D
	mean, vr := make([]float64, d), make([]float64, d)
	cnt := make([]float64, d)
	total := 0
	for _, s := range seqs {
		total += len(s.X) / d
		for i, x := range s.X {
			if x == x {
				cnt[i%d]++
				dx := x - mean[i%d]
				mean[i%d] += dx / cnt[i%d]
				vr[i%d] += dx * (x - mean[i%d])
			}
		}
	}
	for j := range d {
		if cnt[j] > 0 {
			vr[j] /= cnt[j]
		}
		if !(vr[j] > 0) {
			vr[j] = 1
		}
	}
	out := &Gaussian{D: d, Mean: make([]float64, k*d), Var: make([]float64, k*d)}
	for i := range k {
		copy(out.Mean[i*d:(i+1)*d], mean)
		copy(out.Var[i*d:(i+1)*d], vr)
		if total == 0 {
			continue
		}
		n := r.IntN(total)
		for _, s := range seqs {
			if t := len(s.X) / d; n >= t {
				n -= t
				continue
			}
			for j, x := range s.X[n*d : (n+1)*d] {
				if x == x {
					out.Mean[i*d+j] = x
				}
			}
			break
		}
	}
	return out
}

// randomDist fills p with a draw nearly uniform over distributions:
// Dirichlet(1, …, 1) moved by 1e-3 towards uniform so that no entry is 0.
func randomDist(p []float64, r *rand.Rand) {
	s := 0.0
	for i := range p {
		p[i] = r.ExpFloat64() + 1e-3
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}
