package approx

import (
	"math"
	"time"
)

// Importance estimates p's marginals and ln P(e) by adaptive importance
// sampling for Bayesian networks with evidence, after EPIS-BN (Yuan &
// Druzdzel 2003) and AIS-BN (Cheng & Druzdzel 2000). It needs a Bayesian
// network (ErrNotBayesNet otherwise).
//
// The proposal is a set of importance conditional tables (ICPTs), one per
// unobserved variable with the layout of its CPT: samples are drawn
// forward in p.BN.Order from the ICPTs, the evidence clamped, and weighted
// by P(x, e)/Q(x) (the extra factors, p.Likelihood, included). It is built
// in three steps:
//
//   - Start. Without Settings.Init, one sweep of evidence messages (λ,
//     see lambda) weights each CPT row, Q(x | pa) ∝ P(x | pa)·λ(x), mixed
//     half and half with the CPT's row (likelihood weighting's proposal).
//     With Init (loopy BP's beliefs, Init[v][s] ≈ P(v = s | e)),
//     EPIS-BN's evidence pre-propagation: Q(x | pa) ∝ P(x | pa)·λ(x), the
//     message λ(x) from v's evidence below it being estimated as the belief
//     over the prior message π(x) = Σ_pa P(x | pa)·Π_u Init[u][pa_u].
//   - The ε-cutoff. In every ICPT, an entry whose CPT entry is positive is
//     raised to at least ε (0.006 for a binary variable, 0.001 up to 4
//     states, 0.0005 up to 8, 0.0001 beyond) and the row renormalised, so
//     that the proposal's tails are never much lighter than the posterior's
//     (Yuan & Druzdzel 2006); an entry whose CPT entry is 0 stays 0.
//   - Learning (AIS-BN). In 10 stages (5 when started from Init) of 2048
//     samples, each ICPT row moves toward the weighted samples' estimate
//     of P(x | pa, e) (shrunk toward Q by 8 samples of average weight, so
//     that rows few samples reach move little): Q ← Q + η(k)(Q̂ − Q), with
//     the learning rate η(k)
//     = a·(b/a)^(k/K) falling from a = 0.4 to b = 0.14 (half of those from
//     Init), followed by the ε-cutoff. With a Deadline, learning stops
//     once it has used 30 % of the time.
//
// The answer comes from the samples of the final proposal only (from the
// last learning stage's if stopped before any): self-normalised marginals
// and ln Z = ln of the mean weight, with the errors of likelihood
// weighting (~95 % half-widths, see weighted.go and
// [LikelihoodWeighting]). Settings.Samples is the number of final samples
// (default 65536, or until the Deadline); a learning stage has
// Samples/20 of them (between 256 and 4096) when Samples is set. All
// samples are drawn in blocks from streams of (Seed, stage, block), so that
// the numbers are the same on any number of Workers. Stopped, ErrNoAnswer
// and ErrImpossible are as in LikelihoodWeighting; Result.Iterations is
// the number of final samples.
func Importance(p *Problem, s Settings) (*Result, error) {
	start := time.Now()
	f, err := newFwdNet(p)
	if err != nil {
		return nil, err
	}
	prop := f.proposal(s.Init)
	stages, a, b := 10, 0.4, 0.14
	if s.Init != nil {
		stages, a, b = 5, 0.2, 0.07
	}
	stageN := 2048
	if s.Samples > 0 {
		stageN = min(4096, max(smpBlock, s.Samples/20))
	}
	var last *wacc
	stopped := false
	for k := range stages {
		eta := a * math.Pow(b/a, float64(k)/float64(stages))
		acc, stop := f.learn(s, prop, smpTagIS|uint64(k)<<smpStageBits, stageN, eta)
		if acc.n > 0 {
			last = acc
		}
		if stop {
			stopped = true
			break
		}
		if !s.Deadline.IsZero() && time.Since(start) > s.Deadline.Sub(start)*3/10 {
			break
		}
	}
	acc := last
	if !stopped {
		var final *wacc
		final, stopped = f.run(s, prop, smpTagIS|uint64(stages)<<smpStageBits, smpSampleCount(s))
		if final.n > 0 || acc == nil {
			acc = final
		}
	}
	if acc == nil {
		return nil, ErrNoAnswer
	}
	r := &Result{Engine: "is", Iterations: acc.n, Stopped: stopped}
	if err := acc.result(f, r); err != nil {
		return nil, err
	}
	return r, nil
}

// smpPseudo is the weight, in samples of average weight, of the current
// ICPT row in a learning stage's estimate of the row.
const smpPseudo = 8

// smpEpsilon is the ε-cutoff of a variable of card states.
func smpEpsilon(card int) float64 {
	switch {
	case card <= 2:
		return 0.006
	case card <= 4:
		return 0.001
	case card <= 8:
		return 0.0005
	}
	return 0.0001
}

// proposal returns the first ICPTs: prop[v] for each unobserved v, nil
// for the others.
func (f *fwdNet) proposal(init [][]float64) *smpProp {
	prop := make([][]float64, len(f.card))
	var bel, lam [][]float64
	if init != nil {
		bel = f.beliefs(init)
	} else {
		lam = f.lambda()
	}
	for _, v := range f.order {
		if f.obs[v] >= 0 {
			continue
		}
		nd := &f.nodes[v]
		q := append([]float64(nil), nd.vals...)
		if bel != nil {
			f.prePropagate(v, bel, q)
		} else {
			f.weightRows(v, lam[v], q)
		}
		f.cutoff(v, q)
		prop[v] = q
	}
	pr := &smpProp{q: prop}
	pr.logs(f)
	return pr
}

// lambda returns, for every variable, an estimate of the likelihood of the
// evidence below it, λ_v(x) ∝ P(e below v | v = x), by one sweep of
// Pearl's messages: a forward pass of prior marginals π (the evidence
// clamped, parents taken as independent), then, in reverse topological
// order, each CPT's message to each parent u, Σ P(x | pa)·λ_v(x)·Π_{w≠u}
// π_w(pa_w), and each extra factor's message likewise (soft evidence). On
// a polytree λ is exact; elsewhere it is a start that learning refines. It
// lets importance sampling begin near the posterior without loopy BP's
// beliefs, and sees the deterministic zeros that make samples from the
// CPTs all of weight 0.
func (f *fwdNet) lambda() [][]float64 {
	n := len(f.card)
	pi := make([][]float64, n)
	lam := make([][]float64, n)
	for _, v := range f.order {
		c := f.card[v]
		pi[v], lam[v] = make([]float64, c), make([]float64, c)
		for s := range c {
			lam[v][s] = 1
		}
		if o := f.obs[v]; o >= 0 {
			pi[v][o] = 1
			continue
		}
		nd := &f.nodes[v]
		for i, p := range nd.vals {
			if p == 0 {
				continue
			}
			for k, u := range nd.par {
				p *= pi[u][(i/nd.pstr[k])%f.card[u]]
			}
			pi[v][(i/nd.stride)%c] += p
		}
		smpNormRow(pi[v])
	}
	// send multiplies into lam[u] the message Σ vals[i]·own(i)·Π_{w≠u}
	// π_w over the table's entries, u at position k of vars.
	msg := make([]float64, 0, 16)
	send := func(vals []float64, vars, str []int, own func(i int) float64, k int) {
		u := vars[k]
		if f.obs[u] >= 0 {
			return
		}
		c := f.card[u]
		msg = append(msg[:0], make([]float64, c)...)
		for i, p := range vals {
			if p == 0 {
				continue
			}
			if own != nil {
				p *= own(i)
			}
			for kk, w := range vars {
				if kk != k {
					p *= pi[w][(i/str[kk])%f.card[w]]
				}
			}
			msg[(i/str[k])%c] += p
		}
		top := 0.0
		for s := range c {
			lam[u][s] *= msg[s]
			top = max(top, lam[u][s])
		}
		if top > 0 && !math.IsInf(top, 1) {
			for s := range c {
				lam[u][s] /= top
			}
		}
	}
	for e := range f.extra {
		x := &f.extra[e]
		for k := range x.vars {
			send(x.vals, x.vars, x.str, nil, k)
		}
	}
	vars, str := []int(nil), []int(nil)
	for o := len(f.order) - 1; o >= 0; o-- {
		v := f.order[o]
		nd := &f.nodes[v]
		c := f.card[v]
		lv := lam[v]
		if ob := f.obs[v]; ob >= 0 {
			lv = make([]float64, c)
			lv[ob] = 1
		}
		own := func(i int) float64 { return lv[(i/nd.stride)%c] }
		vars = append(append(vars[:0], nd.par...), v)
		str = append(append(str[:0], nd.pstr...), nd.stride)
		for k := range nd.par {
			send(nd.vals, vars, str, own, k)
		}
	}
	return lam
}

// smpLamMix is the share of the evidence-weighted row in the first ICPT
// without beliefs, the rest being the CPT's row: a defensive mixture,
// since one sweep of messages on a loopy network can be confidently wrong
// and a proposal lighter-tailed than the posterior gives rare, huge
// weights (measured on alarm and insurance with 5 and 15 unlikely
// findings: 0.5 keeps the marginals' errors covered ≥ 95 % of the time,
// 1 does not).
const smpLamMix = 0.5

// weightRows sets q (a copy of v's CPT) to the mixture, with weight
// smpLamMix, of q(x | pa) ∝ P(x | pa)·λ(x) and the CPT's row; a row that
// the first leaves all zero keeps the CPT's.
func (f *fwdNet) weightRows(v int, lam, q []float64) {
	nd := &f.nodes[v]
	c := f.card[v]
	for i := range q {
		if (i/nd.stride)%c != 0 {
			continue
		}
		t := 0.0
		for s := range c {
			t += nd.vals[i+s*nd.stride] * lam[s]
		}
		if !(t > 0) || math.IsInf(t, 1) {
			continue
		}
		for s := range c {
			j := i + s*nd.stride
			q[j] = smpLamMix*nd.vals[j]*lam[s]/t + (1-smpLamMix)*nd.vals[j]
		}
	}
}

// beliefs returns init made safe: each row of an unobserved variable
// normalised (uniform if it is not a distribution), a point mass at the
// observed state for the others.
func (f *fwdNet) beliefs(init [][]float64) [][]float64 {
	bel := make([][]float64, len(f.card))
	for v, c := range f.card {
		if c == 0 {
			continue
		}
		b := make([]float64, c)
		bel[v] = b
		if o := f.obs[v]; o >= 0 {
			b[o] = 1
			continue
		}
		t := 0.0
		if v < len(init) && len(init[v]) == c {
			for s, x := range init[v] {
				if x >= 0 && !math.IsInf(x, 1) {
					b[s] = x
					t += x
				}
			}
		}
		if !(t > 0) || math.IsInf(t, 1) {
			for s := range b {
				b[s] = 1
			}
			t = float64(c)
		}
		for s := range b {
			b[s] /= t
		}
	}
	return bel
}

// prePropagate sets q (a copy of v's CPT) to EPIS-BN's ICPT from the
// beliefs: q(x | pa) ∝ P(x | pa)·bel(x)/π(x), π(x) = Σ_pa P(x | pa)·Π_u
// bel_u(pa_u). A row that this leaves all zero keeps the CPT's.
func (f *fwdNet) prePropagate(v int, bel [][]float64, q []float64) {
	nd := &f.nodes[v]
	c := f.card[v]
	pi := make([]float64, c)
	for i, p := range nd.vals {
		if p == 0 {
			continue
		}
		w := p
		for k, u := range nd.par {
			w *= bel[u][(i/nd.pstr[k])%f.card[u]]
		}
		pi[(i/nd.stride)%c] += w
	}
	lam := make([]float64, c)
	top := 0.0
	for s := range c {
		if pi[s] > 0 {
			lam[s] = bel[v][s] / pi[s]
			top = max(top, lam[s])
		}
	}
	if !(top > 0) || math.IsInf(top, 1) {
		return
	}
	for i := range q {
		if (i/nd.stride)%c != 0 {
			continue
		}
		t := 0.0
		for s := range c {
			t += nd.vals[i+s*nd.stride] * lam[s] / top
		}
		if !(t > 0) {
			continue
		}
		for s := range c {
			j := i + s*nd.stride
			q[j] = nd.vals[j] * lam[s] / top / t
		}
	}
}

// cutoff applies the ε-cutoff to v's ICPT q: in each row, entries whose
// CPT entry is positive raised to ε, the others 0, and the row
// normalised.
func (f *fwdNet) cutoff(v int, q []float64) {
	nd := &f.nodes[v]
	c := f.card[v]
	eps := smpEpsilon(c)
	for i := range q {
		if (i/nd.stride)%c != 0 {
			continue
		}
		t := 0.0
		for s := range c {
			j := i + s*nd.stride
			switch {
			case !(nd.vals[j] > 0):
				q[j] = 0
			case !(q[j] >= eps):
				q[j] = eps
			}
			t += q[j]
		}
		if !(t > 0) {
			continue // a row of zeros in the CPT: never drawn from
		}
		for s := range c {
			q[i+s*nd.stride] /= t
		}
	}
}

// learn runs one AIS-BN learning stage: n samples from prop on the
// streams tag|k, their weighted counts per ICPT entry, and each ICPT row
// moved by eta toward the counts' estimate of P(x | pa, e). It returns the
// stage's sums (an estimate in its own right) and whether it was stopped
// (prop is then left unchanged).
func (f *fwdNet) learn(s Settings, pr *smpProp, tag uint64, n int, eta float64) (*wacc, bool) {
	prop := pr.q
	workers := smpWorkers(s)
	st := smpStopper{s.Deadline, s.Cancel}
	nv := len(f.card)
	sc := make([]smpScratch, workers)
	for j := range sc {
		sc[j] = smpScratch{lw: make([]float64, smpBlock), xs: make([]int, smpBlock*nv), ids: make([]int, smpBlock*nv), acc: newWacc(f.total)}
	}
	total := newWacc(f.total)
	counts := make([][]float64, nv) // Σ w·1[entry drawn], scaled by exp(−top)
	for v, q := range prop {
		if q != nil {
			counts[v] = make([]float64, len(q))
		}
	}
	top := math.Inf(-1)
	wsum, npos := 0.0, 0 // Σ w (scaled like counts), and the samples of weight > 0
	blocks := (n + smpBlock - 1) / smpBlock
	draw := func(k, j int) bool {
		size := min(smpBlock, n-k*smpBlock)
		b := &sc[j]
		if !f.drawBlock(s.Seed, tag|uint64(k), pr, st, b.lw[:size], b.xs, b.ids) {
			return false
		}
		b.acc.reset()
		b.acc.addBlock(f, b.lw[:size], b.xs)
		return true
	}
	merge := func(j int) {
		b := &sc[j]
		total.merge(b.acc)
		for i, l := range b.lw[:b.acc.n] {
			if math.IsInf(l, -1) {
				continue
			}
			if l > top {
				if !math.IsInf(top, -1) {
					r := math.Exp(top - l)
					for _, c := range counts {
						for e := range c {
							c[e] *= r
						}
					}
					wsum *= r
				}
				top = l
			}
			w := math.Exp(l - top)
			wsum += w
			npos++
			id := b.ids[i*nv : (i+1)*nv]
			for v, c := range counts {
				if c != nil {
					c[id[v]] += w
				}
			}
		}
	}
	_, stopped := smpRunBlocks(workers, 0, blocks, st, draw, merge)
	if stopped || math.IsInf(top, -1) {
		return total, stopped
	}
	// Each row's estimate is shrunk toward the current ICPT by
	// smpPseudo samples of average weight, so that a row that few samples
	// reached (a rare configuration of the parents) moves little instead
	// of to the one state they drew: an ICPT entry learned to ε where the
	// posterior is not small gives rare, huge weights.
	pseudo := smpPseudo * wsum / float64(npos)
	for v, c := range counts {
		if c == nil {
			continue
		}
		nd := &f.nodes[v]
		q := prop[v]
		card := f.card[v]
		for i := range q {
			if (i/nd.stride)%card != 0 {
				continue
			}
			t := 0.0
			for x := range card {
				t += c[i+x*nd.stride]
			}
			if !(t > 0) {
				continue // no sample in this row: keep it
			}
			for x := range card {
				j := i + x*nd.stride
				est := (c[j] + pseudo*q[j]) / (t + pseudo)
				q[j] += eta * (est - q[j])
			}
		}
		f.cutoff(v, q)
	}
	pr.logs(f)
	return total, false
}
