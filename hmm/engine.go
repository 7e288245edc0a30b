package hmm

import "math"

// This file holds the recursions every pass over a sequence is written on:
// the emissions of a block of steps, scaled; a forward step; and
// forward–backward over a sequence in blocks with checkpoints.
//
// Emissions are scaled per step: b_t(k) = exp(log P(x_t | k) − m_t) with m_t
// the largest of the step's log-densities, so the largest is 1 and a
// Gaussian density far out in its tail does not underflow. A categorical
// emission's are divided by their largest directly, without logarithms.
// A step whose densities are all 0 gets b_t = 0, so that c_t = 0. The forward
// recursion keeps α_t normalised (Rabiner's scaling):
//
//	α̂_0 ∝ π ∘ b_0,  α̂_t ∝ (α̂_{t-1} A) ∘ b_t,  c_t = the sum before normalising
//	log P(x_0..x_{T-1}) = Σ_t (log c_t + m_t)
//
// The backward recursion keeps β_t scaled so that Σ_k α̂_t(k) β̂_t(k) = 1,
// dividing by that sum at every step rather than by c_t (the same number
// in exact arithmetic), so rounding cannot accumulate:
//
//	w_t = b_t ∘ β̂_t / c_t,  β_{t-1} = A w_t,  z = α̂_{t-1}·β_{t-1},  β̂_{t-1} = β_{t-1}/z
//	γ_t = α̂_t ∘ β̂_t,  Σ_t ξ_t(i, j) = A_ij Σ_t α̂_{t-1}(i) w_t(j) / z
//
// In blocks of S steps, a first forward pass keeps α̂ at the step before
// each block (T/S vectors); the backward pass then takes the blocks from
// the last, recomputing each block's α̂, b and c from its checkpoint (S
// vectors). With S = ⌈√T⌉ the memory is O(K√T) and the forward recursion
// runs twice; with S = T there is one block and no first pass.

// engine is an HMM's numbers ready for the recursions.
type engine struct {
	k     int
	init  []float64
	trans []float64
	em    emitter
}

func newEngine(h *HMM) *engine {
	return &engine{k: h.K, init: h.Init, trans: h.Trans, em: h.Emit.prepare(h.K)}
}

// work is scratch space for a pass over a sequence.
type work struct {
	s         int       // steps in a block
	b, a      []float64 // s×K: the block's scaled emissions, normalised α̂
	m, c      []float64 // s: the block's log offsets m_t and scales c_t
	beta, wv  []float64 // K
	gamma     []float64 // K
	ck        []float64 // checkpoints: α̂ at the step before each block, nb×K
	xiM       []float64 // K×K: Σ α̂_{t-1}(i) w_t(j) / z, before multiplying by A
	stepBytes int64
}

// newWork returns scratch space for blocks of s steps and nb blocks.
func newWork(k, s, nb int) *work {
	return &work{
		s: s, b: make([]float64, s*k), a: make([]float64, s*k),
		m: make([]float64, s), c: make([]float64, s),
		beta: make([]float64, k), wv: make([]float64, k), gamma: make([]float64, k),
		ck: make([]float64, nb*k),
	}
}

// workBytes returns the bytes of newWork(k, s, nb).
func workBytes(k, s, nb int) int64 {
	return bytesOf(int64(s), int64(2*k+2)*8) + bytesOf(int64(nb), int64(k)*8)
}

// blockSize returns the steps of a block for forward–backward over t
// steps: t itself when the blocks' arrays (2tK + 2t numbers) fit in
// plainBytes, else ⌈√t⌉.
func blockSize(k, t int) int {
	if workBytes(k, t, 1) <= plainBytes {
		return max(t, 1)
	}
	return max(int(math.Ceil(math.Sqrt(float64(t)))), 1)
}

// plainBytes is the most memory forward–backward over one sequence keeps
// in one block before it checkpoints.
const plainBytes = 64 << 20

// emit sets b and m for steps [lo, hi) of s.
func (e *engine) emit(s Seq, lo, hi int, b, m []float64) {
	k := e.k
	if c, ok := e.em.(*catEmitter); ok {
		c.scaledProbs(s, lo, hi, b, m)
		return
	}
	e.em.logProbs(s, lo, hi, b[:(hi-lo)*k])
	for t := range hi - lo {
		row := b[t*k : (t+1)*k]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		if math.IsInf(mx, -1) {
			mx = 0 // every density 0: c_t will be 0
		}
		for i, v := range row {
			row[i] = math.Exp(v - mx)
		}
		m[t] = mx
	}
}

// first sets dst to α̂_0 from b_0 and returns c_0.
func (e *engine) first(b, dst []float64) float64 {
	s := 0.0
	for i, p := range e.init {
		dst[i] = p * b[i]
		s += dst[i]
	}
	normalise(dst, s)
	return s
}

// step sets dst to α̂_t from prev = α̂_{t-1} and b = b_t, and returns c_t.
func (e *engine) step(prev, b, dst []float64) float64 {
	k := e.k
	clear(dst)
	for i, p := range prev {
		if p == 0 {
			continue
		}
		row := e.trans[i*k : (i+1)*k]
		dst := dst[:len(row)]
		for j, a := range row {
			dst[j] += p * a
		}
	}
	s := 0.0
	b = b[:len(dst)]
	for j, v := range dst {
		v *= b[j]
		dst[j] = v
		s += v
	}
	normalise(dst, s)
	return s
}

// normalise divides p by s, if s > 0.
func normalise(p []float64, s float64) {
	if !(s > 0) {
		return
	}
	if s >= 0x1p-1000 {
		inv := 1 / s
		for i := range p {
			p[i] *= inv
		}
		return
	}
	for i := range p {
		p[i] /= s
	}
}

// impossible returns the error of a sequence whose step t has probability
// zero given the steps before it.
func impossible(t int) error {
	return seqErrorf(ErrImpossible, -1, t, "the observations up to step %d have probability zero", t)
}

// forward runs the forward recursion over the t steps of s in chunks of
// w.s steps, calling fn(t, α̂_t) at every step (fn may be nil), and returns
// the log-likelihood.
func (e *engine) forward(s Seq, T int, w *work, fn func(t int, a []float64)) (float64, error) {
	k := e.k
	var ll logSum
	prev := w.beta // α̂_{t-1} between chunks
	for lo := 0; lo < T; lo += w.s {
		hi := min(lo+w.s, T)
		e.emit(s, lo, hi, w.b, w.m)
		for t := lo; t < hi; t++ {
			i := t - lo
			dst := w.a[i*k : (i+1)*k]
			var c float64
			if t == 0 {
				c = e.first(w.b[:k], dst)
			} else {
				c = e.step(prev, w.b[i*k:(i+1)*k], dst)
			}
			if !(c > 0) {
				return math.Inf(-1), impossible(t)
			}
			ll.add(c, w.m[i])
			if fn != nil {
				fn(t, dst)
			}
			prev = dst
		}
		copy(w.beta, prev)
		prev = w.beta
	}
	return ll.value(), nil
}

// logSum adds up Σ_t (log c_t + m_t), taking one logarithm of a product of
// many scales rather than one per step: every c_t is at most 1 (the b_t are
// at most 1 and α̂_{t-1}A sums to 1), so the product is kept above 2^-500
// and scales below that are taken one by one.
type logSum struct {
	sum, m, prod float64 // prod 0 stands for 1
}

func (l *logSum) add(c, m float64) {
	l.m += m
	if c < 0x1p-500 {
		l.sum += math.Log(c)
		return
	}
	if l.prod == 0 {
		l.prod = c
		return
	}
	l.prod *= c
	if l.prod < 0x1p-500 {
		l.sum += math.Log(l.prod)
		l.prod = 0
	}
}

func (l *logSum) value() float64 {
	s := l.sum + l.m
	if l.prod != 0 {
		s += math.Log(l.prod)
	}
	return s
}

// smooth runs forward–backward over the T steps of s in blocks of w.s
// steps, calling visit(t, γ_t) for t = T−1 down to 0 (visit may keep
// nothing of γ_t), adding Σ_t α̂_{t-1}(i) w_t(j)/z to w.xiM if it is not
// nil, and returns the log-likelihood.
func (e *engine) smooth(s Seq, T int, w *work, visit func(t int, g []float64)) (float64, error) {
	if T == 0 {
		return 0, nil
	}
	k, S := e.k, w.s
	nb := (T + S - 1) / S
	var ll logSum
	if nb > 1 {
		v, err := e.forward(s, T, w, func(t int, a []float64) {
			if (t+1)%S == 0 && t+1 < T {
				copy(w.ck[(t+1)/S*k:], a)
			}
		})
		if err != nil {
			return v, err
		}
		ll.m = v
	}
	beta := w.beta
	for i := range beta {
		beta[i] = 1
	}
	for blk := nb - 1; blk >= 0; blk-- {
		lo, hi := blk*S, min((blk+1)*S, T)
		e.emit(s, lo, hi, w.b, w.m)
		for t := lo; t < hi; t++ {
			i := t - lo
			dst := w.a[i*k : (i+1)*k]
			var c float64
			switch {
			case t == 0:
				c = e.first(w.b[:k], dst)
			case t == lo:
				c = e.step(w.ck[blk*k:(blk+1)*k], w.b[:k], dst)
			default:
				c = e.step(w.a[(i-1)*k:i*k], w.b[i*k:(i+1)*k], dst)
			}
			if !(c > 0) {
				return math.Inf(-1), impossible(t)
			}
			w.c[i] = c
			if nb == 1 {
				ll.add(c, w.m[i])
			}
		}
		for t := hi - 1; t >= lo; t-- {
			i := t - lo
			a := w.a[i*k : (i+1)*k]
			g := w.gamma[:k]
			beta = beta[:k]
			sum := 0.0
			for j, aj := range a {
				v := aj * beta[j]
				g[j] = v
				sum += v
			}
			normalise(g, sum)
			visit(t, g)
			if t == 0 {
				break
			}
			// β̂_{t-1} from β̂_t.
			b, wv := w.b[i*k:(i+1)*k], w.wv[:k]
			inv := 1 / w.c[i]
			beta = beta[:k]
			for j, bj := range b {
				wv[j] = bj * beta[j] * inv
			}
			z := 0.0
			var prev []float64
			if t == lo {
				prev = w.ck[blk*k : (blk+1)*k]
			} else {
				prev = w.a[(i-1)*k : i*k]
			}
			prev = prev[:k]
			for r := range beta {
				row := e.trans[r*k : (r+1)*k]
				wv := wv[:len(row)]
				v := 0.0
				for j, p := range row {
					v += p * wv[j]
				}
				beta[r] = v
				z += prev[r] * v
			}
			if !(z > 0) || math.IsInf(z, 1) {
				return math.Inf(-1), impossible(t)
			}
			zi := 1 / z
			for r := range beta {
				beta[r] *= zi
			}
			if w.xiM != nil {
				for r, p := range prev {
					if p == 0 {
						continue
					}
					p *= zi
					row := w.xiM[r*k : (r+1)*k]
					row = row[:len(wv)]
					for j, v := range wv {
						row[j] += p * v
					}
				}
			}
		}
	}
	return ll.value(), nil
}
